import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const IMPORT_JOB_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type ImportJobStatus = (typeof IMPORT_JOB_STATUSES)[number];
export type ImportKind = 'CONTACTS' | 'GENERIC';

/** One row that an import could not take, and why (the first ones are kept). */
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
export class ImportJob {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' }) companyId!: number;
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
  @Column({ name: 'attempts', type: 'integer' }) attempts!: number;
  @Column({ name: 'submitted_at', type: 'timestamptz' }) submittedAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true }) finishedAt!: Date | null;
}
