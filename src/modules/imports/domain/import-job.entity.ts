import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TransitionTable } from '../../../common/state/transition-table';
import type { ResourceKind } from '../../../common/tenancy/owned-resource';
import { SqlOwnedColumn } from '../../../common/persistence/sql-owned-column';

export const IMPORT_JOB: ResourceKind = {
  code: 'IMPORT_JOB',
  notFoundMessage: 'Importação não encontrada',
};

export const IMPORT_JOB_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type ImportJobStatus = (typeof IMPORT_JOB_STATUSES)[number];

/** A job is born PENDING, when the request is accepted. */
export const IMPORT_JOB_SUBMITTED: ImportJobStatus = 'PENDING';

export type ImportJobAction =
  /** A worker leases it: a PENDING job, or a RUNNING one whose worker's lease ran out. */
  | 'claim'
  /** Its rows committed, in the same transaction. */
  | 'complete'
  /** A refusal, or the last attempt failed. */
  | 'fail'
  /** An unexpected error: back in the queue for another attempt. */
  | 'retry';

export const IMPORT_JOB_LIFECYCLE = new TransitionTable<ImportJobStatus, ImportJobAction>(
  'IMPORT_JOB',
  {
    claim: { PENDING: 'RUNNING', RUNNING: 'RUNNING' },
    complete: { RUNNING: 'COMPLETED' },
    fail: { RUNNING: 'FAILED' },
    retry: { RUNNING: 'PENDING' },
  },
);
/** What the job imports (the user-databases module's ImportKind, as the job records it). */
export type ImportKind = 'CONTACTS' | 'GENERIC';

/** One row the import could not take, as the job records it for its status response. */
export interface RowError {
  /** 0-based index in the request's contacts/rows array. */
  row: number;
  reason: string;
}

/**
 * An async push import (docs/API-RULES.md §6). Claimed by a worker with
 * SKIP LOCKED and a lease; its rows and its COMPLETED state commit in one transaction, so a
 * worker killed mid-job leaves nothing behind and the next one starts it over.
 */
@Entity({ name: 'contact_import_jobs' })
@Index('contact_import_jobs_company_idx', ['companyId', 'id'])
// The workers' queue of open jobs: a partial index, kept by its migration.
@Index('contact_import_jobs_open_idx', { synchronize: false })
@Check('contact_import_jobs_kind_check', "kind IN ('CONTACTS','GENERIC')")
@Check('contact_import_jobs_status_check', "status IN ('PENDING','RUNNING','COMPLETED','FAILED')")
export class ImportJob {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'contact_import_jobs_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'kind', type: 'varchar', length: 10 }) kind!: ImportKind;
  @Column({ name: 'status', type: 'varchar', length: 10 }) status!: ImportJobStatus;
  /** Up to 100,000 rows: never loaded with the job, only by the worker. */
  @Column({ name: 'payload', type: 'jsonb', nullable: true, select: false }) payload!: unknown;
  @Column({ name: 'database_id', type: 'integer', nullable: true }) databaseId!: number | null;
  @Column({ name: 'total_rows', type: 'integer' }) totalRows!: number;
  @Column({ name: 'imported', type: 'integer', nullable: true }) imported!: number | null;
  @Column({ name: 'duplicates_removed', type: 'integer', nullable: true })
  duplicatesRemoved!: number | null;
  @Column({ name: 'invalid_rows', type: 'integer', nullable: true }) invalidRows!: number | null;
  @Column({ name: 'row_errors', type: 'jsonb', nullable: true }) rowErrors!: RowError[] | null;
  @Column({ name: 'error', type: 'text', nullable: true }) error!: string | null;
  @Column({ name: 'attempts', type: 'integer', default: 0 }) attempts!: number;
  /** The worker's lease: only the repository's claim SQL writes it, so saves never touch it. */
  @SqlOwnedColumn('locked_by', 'varchar', 100)
  readonly lockedBy?: string | null;
  @SqlOwnedColumn('locked_until', 'timestamptz')
  readonly lockedUntil?: Date | null;
  @Column({ name: 'submitted_at', type: 'timestamptz' }) submittedAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true }) finishedAt!: Date | null;
}
