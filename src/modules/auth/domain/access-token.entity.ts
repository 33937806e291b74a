import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A long-lived access token; only its SHA-256 hash is kept. */
@Entity({ name: 'access_tokens' })
@Index('access_tokens_token_hash_key', ['tokenHash'], { unique: true })
@Index('access_tokens_company_id_idx', ['companyId'])
export class AccessToken {
  @PrimaryGeneratedColumn({ name: 'id', type: 'bigint' }) id!: string;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'access_tokens_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'token_hash', type: 'char', length: 64 }) tokenHash!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt!: Date | null;

  static issue(companyId: number, tokenHash: string, now: Date): AccessToken {
    const token = new AccessToken();
    token.companyId = companyId;
    token.tokenHash = tokenHash;
    token.createdAt = now;
    token.revokedAt = null;
    return token;
  }
}
