import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ColumnDefinition } from './column';
import {
  USER_DATABASE_CREATED,
  USER_DATABASE_LIFECYCLE,
  UserDatabaseOrigin,
  UserDatabaseStatus,
} from './user-database-status';
import { StatusToggleNotAllowedError, SystemDatabaseReadOnlyError } from './user-database.errors';
import { Timestamped } from '../../../common/persistence/timestamped';

/** docs/API-RULES.md §6: what a gateway sync did (totalFetched = processed + duplicatesSkipped + filteredByPhone). */
export interface SyncSummary {
  totalFetched: number;
  processed: number;
  duplicatesSkipped: number;
  filteredByPhone: number;
}

export const SYSTEM_DATABASE_NAME = 'Contatos de campanhas';

export interface NewUserDatabase {
  companyId: number;
  name: string;
  description: string | null;
  origin: UserDatabaseOrigin;
  columns: ColumnDefinition[];
}

/**
 * A company's contact database. Its records live in user_database_records; rowCount is kept
 * in the same transactions that add or remove them.
 */
@Entity({ name: 'user_databases' })
@Index('user_databases_company_idx', ['companyId', 'id'])
// UNIQUE (company_id) WHERE origin = 'SYSTEM': one SYSTEM database per company.
@Index('user_databases_system_key', { synchronize: false })
@Check('user_databases_origin_check', "origin IN ('UPLOAD','GATEWAY','PUSH_IMPORT','SYSTEM')")
@Check('user_databases_status_check', "status IN ('ACTIVE','INACTIVE','PROCESSING','ERROR')")
export class UserDatabase extends Timestamped {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'user_databases_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name!: string;
  @Column({ name: 'description', type: 'varchar', length: 500, nullable: true })
  description!: string | null;
  @Column({ name: 'origin', type: 'varchar', length: 20 }) origin!: UserDatabaseOrigin;
  @Column({ name: 'status', type: 'varchar', length: 20 }) status!: UserDatabaseStatus;
  @Column({ name: 'row_count', type: 'integer', default: 0 }) rowCount!: number;
  @Column({ name: 'columns', type: 'jsonb' }) columns!: ColumnDefinition[];
  @Column({ name: 'gateway_config_id', type: 'integer', nullable: true }) configId!: number | null;
  @Column({ name: 'include_groups', type: 'boolean', nullable: true }) includeGroups!:
    boolean | null;
  @Column({ name: 'last_synced_at', type: 'timestamptz', nullable: true })
  lastSyncedAt!: Date | null;
  @Column({ name: 'last_sync_summary', type: 'jsonb', nullable: true })
  lastSyncSummary!: SyncSummary | null;

  /** New databases are ACTIVE: imports fill them inside the transaction that creates them. */
  static create(props: NewUserDatabase, now: Date): UserDatabase {
    const database = new UserDatabase();
    Object.assign(database, {
      companyId: props.companyId,
      name: props.name,
      description: props.description,
      origin: props.origin,
      status: USER_DATABASE_CREATED,
      rowCount: 0,
      columns: props.columns,
      configId: null,
      includeGroups: null,
      lastSyncedAt: null,
      lastSyncSummary: null,
      createdAt: now,
      updatedAt: now,
    });
    return database;
  }

  get isSystem(): boolean {
    return this.origin === 'SYSTEM';
  }

  get phoneColumn(): ColumnDefinition | undefined {
    return this.columns.find((c) => c.isPhoneColumn);
  }

  /** Writes by hand (records, toggle, delete, appends, sync) are refused on the SYSTEM database. */
  assertWritable(): void {
    if (this.isSystem) {
      throw new SystemDatabaseReadOnlyError();
    }
  }

  /**
   * A gateway sync replaced the records (rowCount is the count after it) and records how it
   * read them; name and description change only when the request gave them.
   */
  recordSync(
    sync: {
      configId: number;
      includeGroups: boolean;
      summary: SyncSummary;
      rowCount: number;
      name: string | null;
      description: string | null;
    },
    now: Date,
  ): void {
    this.rowCount = sync.rowCount;
    this.configId = sync.configId;
    this.includeGroups = sync.includeGroups;
    this.lastSyncedAt = now;
    this.lastSyncSummary = sync.summary;
    this.name = sync.name ?? this.name;
    this.description = sync.description ?? this.description;
    this.updatedAt = now;
  }

  toggleStatus(now: Date): void {
    this.assertWritable();
    const next = USER_DATABASE_LIFECYCLE.next(this.status, 'toggle');
    if (!next) {
      throw new StatusToggleNotAllowedError(this.status);
    }
    this.status = next;
    this.updatedAt = now;
  }
}
