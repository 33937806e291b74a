import type { EntityManager } from 'typeorm';
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
  abstract append(manager: EntityManager, events: OutboxEvent[]): Promise<void>;
}
