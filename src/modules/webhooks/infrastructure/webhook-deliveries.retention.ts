import { finishedRowsRetention } from '../../../common/retention/retention-policies';
import { WEBHOOK_DELIVERY_LIFECYCLE } from '../domain/webhook-delivery';

/** Finished deliveries (their attempts go with them) after RETENTION_WEBHOOK_DELIVERIES_DAYS. */
export const webhookDeliveriesRetention = finishedRowsRetention(WEBHOOK_DELIVERY_LIFECYCLE, {
  name: 'webhook deliveries (and their attempts)',
  table: 'webhook_deliveries',
  agedFrom: 'finished_at',
  days: 'webhookDeliveries',
});
