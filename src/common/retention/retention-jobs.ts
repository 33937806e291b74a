import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config.service';
import { queryRows } from '../../database/query-rows';
import { RetentionPolicies, type RetentionPolicy } from './retention-policies';

const BATCH_SIZE = 1_000;
/** A run stops after this many batches of one table and takes the rest next time. */
const MAX_BATCHES_PER_RUN = 500;
/** One instance at a time runs the retention jobs (a session advisory lock). */
export const RETENTION_LOCK = 0x52_45_54_4e;

/**
 * Keeps every growing table bounded: once an hour (@nestjs/schedule), on one instance at a
 * time, it deletes the rows the modules' policies call expired (RETENTION_*_DAYS), in batches
 * of 1,000, each its own short transaction, so that no delete holds locks for long or competes
 * with the engine's statements for more than a moment.
 */
@Injectable()
export class RetentionJobs {
  private readonly logger = new Logger(RetentionJobs.name);

  constructor(
    private readonly policies: RetentionPolicies,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'retention' })
  async scheduled(): Promise<void> {
    if (!this.config.runsWorkers) {
      return;
    }
    await this.runOnce().catch((error: unknown) =>
      this.logger.error({ err: error }, 'Retention run failed'),
    );
  }

  /** One pass over every table; what each deleted, or null when another instance is running. */
  runOnce(): Promise<Record<string, number> | null> {
    return this.exclusively(async () => {
      const deleted: Record<string, number> = {};
      for (const policy of this.policies.inRunOrder()) {
        deleted[policy.table] = await this.purge(policy);
      }
      const removed = Object.values(deleted).reduce((sum, n) => sum + n, 0);
      if (removed > 0) {
        this.logger.log({ deleted }, 'Retention: old rows removed');
      }
      return deleted;
    });
  }

  private async purge(policy: RetentionPolicy): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
      const count = await this.deleteBatch(policy);
      total += count;
      if (count < BATCH_SIZE) {
        break;
      }
    }
    return total;
  }

  /** Runs `work` while holding the retention lock; null when another instance holds it. */
  private async exclusively<T>(work: () => Promise<T>): Promise<T | null> {
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
  private async deleteBatch(policy: RetentionPolicy): Promise<number> {
    // Table, key and predicate are the modules' constants, never input.
    const rows = await queryRows<{ deleted: number }>(
      this.dataSource,
      `WITH gone AS (
         DELETE FROM ${policy.table}
          WHERE ${policy.key} IN (SELECT ${policy.key} FROM ${policy.table}
                                   WHERE ${policy.expired} LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING 1)
       SELECT count(*)::int AS deleted FROM gone`,
      [`${policy.days} days`, BATCH_SIZE],
    );
    return rows[0]?.deleted ?? 0;
  }
}
