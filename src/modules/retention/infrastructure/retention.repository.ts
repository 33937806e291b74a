import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '../../../database/query-rows';
import type { RetentionPolicy } from '../domain/retention-policies';

/** One instance at a time runs the retention jobs (a session advisory lock). */
export const RETENTION_LOCK = 0x52_45_54_4e;

/**
 * Deletes in small batches, each its own short transaction, so that no delete holds locks for
 * long or competes with the engine's statements for more than a moment.
 */
@Injectable()
export class RetentionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Runs `work` while holding the retention lock; null when another instance holds it. */
  async exclusively<T>(work: () => Promise<T>): Promise<T | null> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ locked }] = (await runner.query(`SELECT pg_try_advisory_lock($1) AS locked`, [
        RETENTION_LOCK,
      ])) as Array<{ locked: boolean }>;
      if (!locked) {
        return null;
      }
      try {
        return await work();
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1)`, [RETENTION_LOCK]);
      }
    } finally {
      await runner.release();
    }
  }

  /** One batch of `policy`'s expired rows; the count deleted. */
  async deleteBatch(policy: RetentionPolicy, batchSize: number): Promise<number> {
    const rows = await queryRows<{ deleted: number }>(
      this.dataSource,
      `WITH gone AS (
         DELETE FROM ${policy.table}
          WHERE ${policy.key} IN (SELECT ${policy.key} FROM ${policy.table}
                                   WHERE ${policy.expired} LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING 1)
       SELECT count(*)::int AS deleted FROM gone`,
      [`${policy.days} days`, batchSize],
    );
    return rows[0]?.deleted ?? 0;
  }
}
