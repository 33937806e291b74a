import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { countUpTo, execute, queryMilliseconds, queryRows } from '../../../database/query-rows';
import { TenantRepository } from '../../../common/tenancy/owned-resource';
import { statusLiteral } from '../../../common/state/transition-table';
import {
  IMPORT_JOB,
  IMPORT_JOB_LIFECYCLE,
  IMPORT_JOB_SUBMITTED,
  ImportJob,
  ImportKind,
  RowError,
} from '../domain/import-job.entity';

export interface ClaimedJob {
  id: number;
  companyId: number;
  kind: ImportKind;
  attempts: number;
}

export interface JobOutcome {
  databaseId: number;
  imported: number;
  duplicatesRemoved: number;
  invalidRows: number;
  rowErrors: RowError[];
}

/** LISTEN/NOTIFY channel that wakes import workers. */
export const IMPORT_CHANNEL = 'contact_imports';

/** Each move as the job's transition table has it (SQL literals from the table, never input). */
const MOVE = {
  claim: IMPORT_JOB_LIFECYCLE.sql('claim'),
  complete: IMPORT_JOB_LIFECYCLE.sql('complete'),
  fail: IMPORT_JOB_LIFECYCLE.sql('fail'),
  retry: IMPORT_JOB_LIFECYCLE.sql('retry'),
};

@Injectable()
export class ImportJobsRepository extends TenantRepository<ImportJob> {
  constructor(
    @InjectRepository(ImportJob) repository: Repository<ImportJob>,
    private readonly dataSource: DataSource,
  ) {
    super(repository, IMPORT_JOB);
  }

  async submit(job: {
    companyId: number;
    kind: ImportKind;
    payload: unknown;
    totalRows: number;
    databaseId: number | null;
    submittedAt: Date;
  }): Promise<ImportJob> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await queryRows<{ id: number }>(
        manager,
        `INSERT INTO contact_import_jobs (company_id, kind, status, payload, database_id, total_rows, submitted_at)
         VALUES ($1, $2, ${statusLiteral(IMPORT_JOB_SUBMITTED)}, $3::jsonb, $4, $5, $6) RETURNING id`,
        [
          job.companyId,
          job.kind,
          JSON.stringify(job.payload),
          job.databaseId,
          job.totalRows,
          job.submittedAt,
        ],
      );
      await manager.query(`SELECT pg_notify($1, '')`, [IMPORT_CHANNEL]);
      return manager.getRepository(ImportJob).findOneByOrFail({ id: rows[0].id });
    });
  }

  /**
   * Leases the oldest job that is PENDING, or RUNNING with an expired lease (its worker died).
   * A live worker keeps its job row locked while it works, so SKIP LOCKED passes over it even
   * after the lease runs out: the lease only decides how soon a dead worker's job is retried.
   */
  async claim(workerId: string, leaseSeconds: number): Promise<ClaimedJob | null> {
    const rows = await queryRows<ClaimedJob>(
      this.dataSource,
      `UPDATE contact_import_jobs
          SET status = ${MOVE.claim.to}, locked_by = $1, locked_until = now() + make_interval(secs => $2),
              attempts = attempts + 1, started_at = coalesce(started_at, now())
        WHERE id = (SELECT id FROM contact_import_jobs
                     WHERE status = 'PENDING' OR (status = 'RUNNING' AND locked_until < now())
                     ORDER BY submitted_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, company_id AS "companyId", kind, attempts`,
      [workerId, leaseSeconds],
    );
    return rows[0] ?? null;
  }

  /**
   * The job's payload, row-locked for the transaction: its options, and its rows as JSON text
   * (they are parsed on the planner's thread, not here); null when another worker took the
   * job over.
   */
  async lockForWork(
    tx: Transaction,
    id: number,
    workerId: string,
  ): Promise<{ options: unknown; rowsJson: string } | null> {
    const rows = await queryRows<{ options: unknown; rowsJson: string }>(
      tx,
      `SELECT payload - 'rows' AS options, (payload -> 'rows')::text AS "rowsJson" FROM contact_import_jobs
        WHERE id = $1 AND locked_by = $2 AND status = 'RUNNING' FOR UPDATE`,
      [id, workerId],
    );
    return rows[0] ?? null;
  }

  async complete(tx: Transaction, id: number, outcome: JobOutcome): Promise<void> {
    await execute(
      tx,
      `UPDATE contact_import_jobs
          SET status = ${MOVE.complete.to}, finished_at = now(), payload = NULL, locked_by = NULL, locked_until = NULL,
              database_id = $2, imported = $3, duplicates_removed = $4, invalid_rows = $5, row_errors = $6::jsonb
        WHERE id = $1 AND status IN (${MOVE.complete.from})`,
      [
        id,
        outcome.databaseId,
        outcome.imported,
        outcome.duplicatesRemoved,
        outcome.invalidRows,
        JSON.stringify(outcome.rowErrors),
      ],
    );
  }

  async fail(id: number, workerId: string, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE contact_import_jobs
          SET status = ${MOVE.fail.to}, finished_at = now(), payload = NULL, error = left($3, 1000),
              locked_by = NULL, locked_until = NULL
        WHERE id = $1 AND locked_by = $2 AND status IN (${MOVE.fail.from})`,
      [id, workerId, error],
    );
  }

  /** Back to PENDING after an unexpected error, for another attempt. */
  async retryLater(id: number, workerId: string, error: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE contact_import_jobs SET status = ${MOVE.retry.to}, error = left($3, 1000), locked_by = NULL, locked_until = NULL
        WHERE id = $1 AND locked_by = $2 AND status IN (${MOVE.retry.from})`,
      [id, workerId, error],
    );
  }

  /** For the metrics: PENDING jobs, counted up to `cap` over the open-jobs index. */
  countPending(cap: number): Promise<number> {
    return countUpTo(
      this.dataSource,
      `SELECT 1 FROM contact_import_jobs WHERE status = 'PENDING'`,
      cap,
    );
  }

  async msUntilNextDue(): Promise<number | null> {
    return queryMilliseconds(
      this.dataSource,
      `SELECT extract(epoch FROM min(CASE WHEN status = 'PENDING' THEN now() ELSE locked_until END) - now()) * 1000 AS ms
         FROM contact_import_jobs WHERE status IN ('PENDING', 'RUNNING')`,
    );
  }
}
