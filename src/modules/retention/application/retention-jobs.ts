import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AppConfig } from '../../../config/app-config.service';
import { retentionPolicies } from '../domain/retention-policies';
import { RetentionRepository } from '../infrastructure/retention.repository';

const BATCH_SIZE = 1_000;
/** A run stops after this many batches of one table and takes the rest next time. */
const MAX_BATCHES_PER_RUN = 500;

/**
 * Keeps every growing table bounded: once an hour (@nestjs/schedule), on one instance at a
 * time, it deletes the finished rows older than their retention (RETENTION_*_DAYS), in
 * batches of 1,000.
 */
@Injectable()
export class RetentionJobs {
  private readonly logger = new Logger(RetentionJobs.name);

  constructor(
    private readonly repository: RetentionRepository,
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
    return this.repository.exclusively(async () => {
      const deleted: Record<string, number> = {};
      for (const policy of retentionPolicies(this.config.retentionDays)) {
        let total = 0;
        for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch += 1) {
          const count = await this.repository.deleteBatch(policy, BATCH_SIZE);
          total += count;
          if (count < BATCH_SIZE) {
            break;
          }
        }
        deleted[policy.table] = total;
      }
      const removed = Object.values(deleted).reduce((sum, n) => sum + n, 0);
      if (removed > 0) {
        this.logger.log({ deleted }, 'Retention: old rows removed');
      }
      return deleted;
    });
  }
}
