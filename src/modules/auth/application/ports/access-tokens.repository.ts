import type { Transaction } from '../../../../common/persistence/transaction';
import type { AccessToken } from '../../domain/access-token.entity';

export interface TokenCompanyRow {
  company_id: number;
  name: string;
  email: string;
  is_active: boolean;
  registration_type: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_hour: number | null;
  subscription_status: string | null;
}

export abstract class AccessTokensRepository {
  abstract save(token: AccessToken, tx?: Transaction): Promise<AccessToken>;
  /** One indexed lookup: the live token, its company and the company's subscription status. */
  abstract findLiveTokenCompany(tokenHash: string): Promise<TokenCompanyRow | null>;
  abstract revoke(companyId: number, tokenHash: string, now: Date): Promise<void>;
}
