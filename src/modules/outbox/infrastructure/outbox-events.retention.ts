import { retentionPolicy } from '../../../common/retention/retention-policies';

/**
 * Outbox events after RETENTION_OUTBOX_EVENTS_DAYS, once no webhook delivery points at them:
 * after the deliveries' own retention ran in the same pass.
 */
export const outboxEventsRetention = retentionPolicy((config) => ({
  name: 'outbox events',
  table: 'outbox_events',
  key: 'id',
  expired: `created_at < now() - $1::interval
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.outbox_event_id = outbox_events.id)`,
  days: config.retentionDays.outboxEvents,
  runsLast: true,
}));
