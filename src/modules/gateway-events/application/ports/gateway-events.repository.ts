import type { TrackedEvent } from '../../domain/gateway-event';
import type { CloudAccountEvent } from '../../domain/meta-webhook';
import type { Transaction } from '../../../../common/persistence/transaction';

/** An event to store; its payload is `{data, at}` (at: the gateway's time, ISO 8601). */
export interface IncomingGatewayEvent {
  gatewayConfigId: number;
  companyId: number;
  event: TrackedEvent | CloudAccountEvent;
  payload: Record<string, unknown>;
}

export interface StoredGatewayEvent extends IncomingGatewayEvent {
  id: string;
  attempts: number;
  /** Failures to apply it that were not its values' fault (retryAfterFault). */
  faults: number;
  receivedAt: Date;
}

export const GATEWAY_EVENTS_CHANNEL = 'gateway_events';

/** The event's `data` as stored (an empty object when it is not one). */
export function eventData(payload: Record<string, unknown>): Record<string, unknown> {
  const data = payload.data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}

/** When the event happened: the gateway's time kept in its payload, else `fallback`. */
export function eventTime(payload: Record<string, unknown>, fallback: Date): Date {
  return typeof payload.at === 'string' ? new Date(payload.at) : fallback;
}

/**
 * The gateway's events as a work table: stored in batches before they are acknowledged,
 * claimed with SKIP LOCKED, deleted once processed. A receipt that came before its send was
 * recorded waits a little and is tried again, and so, with back-off, does one that failed for
 * a reason not its own. A configuration's connection events are taken
 * all at once, at most once per CONNECTION_COALESCE_MS: one that arrives within that time after
 * the last application waits for the window's end. An event that fails on its own is set aside
 * (kept with its reason, never claimed again), as is one that keeps failing for any reason.
 */
export abstract class GatewayEventsRepository {
  /**
   * Runs `work` inside `tx` so that, when it throws, only its own writes are undone and the
   * transaction goes on; the error is thrown again.
   */
  abstract inSavepoint<T>(tx: Transaction, work: () => Promise<T>): Promise<T>;
  /**
   * One statement for the whole batch. Writes only the events whose configuration still exists
   * and tracks delivery; answers those configurations.
   */
  abstract store(events: IncomingGatewayEvent[]): Promise<Set<number>>;
  /** Wakes the processors of every instance (NOTIFY): events were stored. */
  abstract announce(): Promise<void>;
  /**
   * Due receipts and replies, locked for this transaction: the companies that have some share
   * the `limit` equally (one company's flood cannot crowd out another's), each one's in due order.
   */
  abstract claimDue(tx: Transaction, limit: number): Promise<StoredGatewayEvent[]>;
  /**
   * Every pending connection event of up to `configs` configurations that have one due, leased
   * for `leaseMs` (no other processor takes them meanwhile; after a crash they come back). Each
   * configuration's window opens: its next connection events wait until it ends.
   */
  abstract leaseConnections(configs: number, leaseMs: number): Promise<StoredGatewayEvent[]>;
  /**
   * Up to `limit` due Cloud API account events (template statuses, number quality), leased for
   * `leaseMs`: applied one at a time, apart from the receipts' batches, since they pause
   * campaigns in transactions of their own.
   */
  abstract leaseAccountEvents(limit: number, leaseMs: number): Promise<StoredGatewayEvent[]>;
  abstract delete(ids: string[], tx?: Transaction): Promise<void>;
  abstract retryLater(tx: Transaction, ids: string[], delayMs: number): Promise<void>;
  /**
   * An application that failed for a reason not the events' own: each is tried again after
   * baseMs × 2^(its faults so far), its faults counted.
   */
  abstract retryAfterFault(ids: string[], baseMs: number, tx?: Transaction): Promise<void>;
  /** Kept with its reason for an operator, never claimed again. */
  abstract setAside(id: string, reason: string, tx?: Transaction): Promise<void>;
  abstract msUntilNextDue(): Promise<number | null>;
}
