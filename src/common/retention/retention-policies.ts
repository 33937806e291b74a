import { Injectable, type Provider } from '@nestjs/common';
import { AppConfig, type RetentionDays } from '../../config/app-config.service';
import type { TransitionTable } from '../state/transition-table';

/**
 * What one retention job removes: rows of `table` that are finished and older than `days`.
 * Each module declares the policy of the tables it owns (its SQL knows what "finished" means
 * there); the kernel's RetentionJobs only runs them.
 */
export interface RetentionPolicy {
  name: string;
  table: string;
  /** The rows' key, for batches: a unique column, or `ctid`. */
  key: string;
  /** Rows that may go: finished, and older than $1 (an interval in days). */
  expired: string;
  days: number;
  /** Its rows go only once rows of other tables stop pointing at them: purge those first. */
  runsLast?: boolean;
}

/** The policies the modules declared, in the order a pass runs them. */
@Injectable()
export class RetentionPolicies {
  private readonly policies: RetentionPolicy[] = [];

  add(policy: RetentionPolicy): void {
    this.policies.push(policy);
  }

  inRunOrder(): RetentionPolicy[] {
    return [
      ...this.policies.filter((policy) => !policy.runsLast),
      ...this.policies.filter((policy) => policy.runsLast),
    ];
  }
}

/**
 * A provider that declares a module's retention policy when the module starts; list it among
 * the module's providers: `retentionPolicy((config) => ({ table: 'notices', … }))`.
 */
export function retentionPolicy(declare: (config: AppConfig) => RetentionPolicy): Provider {
  return {
    provide: Symbol('retention policy'),
    useFactory: (policies: RetentionPolicies, config: AppConfig) => policies.add(declare(config)),
    inject: [RetentionPolicies, AppConfig],
  };
}

/**
 * The policy of a table whose rows follow a lifecycle: a row goes once its status is final in
 * `lifecycle` and its `agedFrom` column is older than the table's RETENTION_*_DAYS
 * (`config.retentionDays[days]`); open rows stay however old they are.
 */
export function finishedRowsRetention<S extends string, A extends string>(
  lifecycle: TransitionTable<S, A>,
  rows: { name: string; table: string; agedFrom: string; days: keyof RetentionDays },
): Provider {
  return retentionPolicy((config) => ({
    name: rows.name,
    table: rows.table,
    key: 'id',
    expired: `status IN (${lifecycle.finalSql()}) AND ${rows.agedFrom} < now() - $1::interval`,
    days: config.retentionDays[rows.days],
  }));
}
