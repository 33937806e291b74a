import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { BlockedBy } from './blocked-by';

/**
 * A number a company does not want to message. Blocking and unblocking are set-based SQL
 * (see BlockedContactsRepository) so that concurrent requests cannot double-block; an
 * unblocked number keeps its row with isActive false.
 */
@Entity({ name: 'blocked_contacts' })
@Unique('blocked_contacts_company_id_phone_number_key', ['companyId', 'phoneNumber'])
@Check('blocked_contacts_blocked_by_check', "blocked_by IN ('MANUAL', 'IMPORT', 'OPT_OUT')")
// Partial, descending, trigram (GIN) and expression indexes TypeORM cannot describe: the
// migration defines them, TypeORM keeps them by name.
@Index('blocked_contacts_active_company_id_blocked_at_idx', { synchronize: false })
@Index('blocked_contacts_active_company_id_phone_number_trgm_idx', { synchronize: false })
@Index('blocked_contacts_company_id_changed_at_idx', { synchronize: false })
export class BlockedContact {
  @PrimaryGeneratedColumn({ name: 'id', type: 'bigint' }) id!: string;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'blocked_contacts_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  /** Normalized: digits with country code, no plus. */
  @Column({ name: 'phone_number', type: 'varchar', length: 20 }) phoneNumber!: string;
  @Column({ name: 'reason', type: 'varchar', length: 500, nullable: true }) reason!: string | null;
  @Column({ name: 'blocked_by', type: 'varchar', length: 20 }) blockedBy!: BlockedBy;
  @Column({ name: 'blocked_at', type: 'timestamptz' }) blockedAt!: Date;
  @Column({ name: 'is_active', type: 'boolean', default: true }) isActive!: boolean;
  @Column({ name: 'unblocked_at', type: 'timestamptz', nullable: true }) unblockedAt!: Date | null;
}
