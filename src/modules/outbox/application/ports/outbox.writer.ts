import type { Transaction } from '../../../../common/persistence/transaction';
export interface OutboxEvent {
  companyId: number;
  campaignId: number | null;
  /** e.g. campaign.started; webhook subscriptions filter on it. */
  eventType: string;
  payload: Record<string, unknown>;
}

/**
 * Appends events to the outbox inside the caller's transaction, so an event exists exactly
 * when the state change that caused it was committed. Webhook delivery reads them later.
 */
export abstract class OutboxWriter {
  abstract append(tx: Transaction, events: OutboxEvent[]): Promise<void>;
}
