import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { managerOf } from '../../../database/transactions';
import { AccessToken } from '../domain/access-token.entity';
import {
  AccessTokensRepository,
  TokenCompanyRow,
} from '../application/ports/access-tokens.repository';

@Injectable()
export class PgAccessTokensRepository implements AccessTokensRepository {
  constructor(@InjectRepository(AccessToken) private readonly tokens: Repository<AccessToken>) {}

  save(token: AccessToken, tx?: Transaction): Promise<AccessToken> {
    return tx ? managerOf(tx).save(token) : this.tokens.save(token);
  }

  async findLiveTokenCompany(tokenHash: string): Promise<TokenCompanyRow | null> {
    const rows: TokenCompanyRow[] = await this.tokens.query(
      `SELECT c.id AS company_id, c.name, c.email, c.is_active, c.registration_type,
              c.rate_limit_per_minute, c.rate_limit_per_hour, s.status AS subscription_status
         FROM access_tokens t
         JOIN companies c ON c.id = t.company_id
         LEFT JOIN company_subscriptions s ON s.company_id = c.id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async revoke(companyId: number, tokenHash: string, now: Date): Promise<void> {
    await this.tokens.update({ companyId, tokenHash, revokedAt: IsNull() }, { revokedAt: now });
  }
}
