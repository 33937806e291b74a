import { retentionPolicy } from '../../../common/retention/retention-policies';
import { WEBHOOK_DELIVERY_LIFECYCLE } from '../domain/webhook-delivery';

/** Finished deliveries (their attempts go with them) after RETENTION_WEBHOOK_DELIVERIES_DAYS. */
export const webhookDeliveriesRetention = retentionPolicy((config) => ({
  name: 'webhook deliveries (and their attempts)',
  table: 'webhook_deliveries',
  key: 'id',
  expired: `status IN (${WEBHOOK_DELIVERY_LIFECYCLE.finalSql()}) AND finished_at < now() - $1::interval`,
  days: config.retentionDays.webhookDeliveries,
}));
