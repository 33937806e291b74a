import type { TrackedEvent } from '../../domain/gateway-event';
import type { EntityManager } from 'typeorm';
export interface IncomingGatewayEvent {
  gatewayConfigId: number;
  companyId: number;
  event: TrackedEvent;
  payload: Record<string, unknown>;
}

export interface StoredGatewayEvent extends IncomingGatewayEvent {
  id: string;
  attempts: number;
  receivedAt: Date;
}

export const GATEWAY_EVENTS_CHANNEL = 'gateway_events';

/**
 * The gateway's events as a work table: stored in batches before they are acknowledged,
 * claimed with SKIP LOCKED, deleted once processed. A receipt that came before its send was
 * recorded waits a little and is tried again.
 */
export abstract class GatewayEventsRepository {
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** One statement for the whole batch, with the NOTIFY that wakes the processors. */
  abstract store(events: IncomingGatewayEvent[]): Promise<void>;
  /** Due events in arrival order, locked for this transaction. */
  abstract claimDue(manager: EntityManager, limit: number): Promise<StoredGatewayEvent[]>;
  abstract delete(manager: EntityManager, ids: string[]): Promise<void>;
  abstract retryLater(manager: EntityManager, ids: string[], delayMs: number): Promise<void>;
  abstract msUntilNextDue(): Promise<number | null>;
}
