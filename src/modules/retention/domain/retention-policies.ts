/** What one retention job removes: rows of `table` that are finished and older than `days`. */
export interface RetentionPolicy {
  name: string;
  table: string;
  /** The rows' key, for batches: a unique column, or `ctid`. */
  key: string;
  /** Rows that may go: finished, and older than $1 (an interval in days). */
  expired: string;
  days: number;
}

export interface RetentionDays {
  webhookDeliveries: number;
  outboxEvents: number;
  notices: number;
  automationRuns: number;
  loginFailures: number;
  importJobs: number;
}

/** Idempotency keys answer retries for 24 hours, then nothing needs them. */
const IDEMPOTENCY_KEY_DAYS = 1;

/**
 * Every table that grows with use, and when its rows are done with. Live rows never match:
 * pending work, running runs and jobs, and outbox events a delivery still points at stay.
 */
export function retentionPolicies(days: RetentionDays): RetentionPolicy[] {
  return [
    {
      name: 'webhook deliveries (and their attempts)',
      table: 'webhook_deliveries',
      key: 'id',
      expired: `status IN ('DELIVERED', 'FAILED') AND finished_at < now() - $1::interval`,
      days: days.webhookDeliveries,
    },
    {
      name: 'outbox events',
      table: 'outbox_events',
      key: 'id',
      expired: `created_at < now() - $1::interval
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.outbox_event_id = outbox_events.id)`,
      days: days.outboxEvents,
    },
    {
      name: 'notices',
      table: 'notices',
      key: 'id',
      expired: `status IN ('SENT', 'FAILED') AND created_at < now() - $1::interval`,
      days: days.notices,
    },
    {
      name: 'automation runs',
      table: 'automation_runs',
      key: 'id',
      expired: `status <> 'RUNNING' AND started_at < now() - $1::interval`,
      days: days.automationRuns,
    },
    {
      name: 'login failures',
      table: 'login_failures',
      key: 'id',
      expired: `failed_at < now() - $1::interval`,
      days: days.loginFailures,
    },
    {
      name: 'import jobs',
      table: 'contact_import_jobs',
      key: 'id',
      expired: `status IN ('COMPLETED', 'FAILED') AND finished_at < now() - $1::interval`,
      days: days.importJobs,
    },
    {
      name: 'idempotency keys',
      table: 'idempotency_keys',
      key: 'ctid',
      expired: `created_at < now() - $1::interval`,
      days: IDEMPOTENCY_KEY_DAYS,
    },
  ];
}
