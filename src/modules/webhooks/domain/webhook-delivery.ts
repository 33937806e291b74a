import { TransitionTable } from '../../../common/state/transition-table';

export const DELIVERY_STATUSES = ['PENDING', 'SENDING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * Deliveries are born PENDING (the outbox trigger of the CreateWebhooks migration writes one per
 * subscribed webhook), due at once or, behind an earlier event of their campaign, at 'infinity'.
 */
export type DeliveryAction =
  /** An attempt begins (claimed, or handed over when the previous event finished). */
  | 'claim'
  /** The receiver answered 2xx. */
  | 'deliver'
  /** Another answer or none, with retries left; or the attempt was cut short. */
  | 'retry'
  /** Another answer or none, with the retry schedule used up. */
  | 'fail'
  /** Held by a switched-off webhook for longer than its event may wait. */
  | 'expire';

export const WEBHOOK_DELIVERY_LIFECYCLE = new TransitionTable<DeliveryStatus, DeliveryAction>(
  'WEBHOOK_DELIVERY',
  {
    claim: { PENDING: 'SENDING' },
    deliver: { SENDING: 'DELIVERED' },
    retry: { SENDING: 'PENDING' },
    fail: { SENDING: 'FAILED' },
    expire: { PENDING: 'FAILED' },
  },
);

/** What an attempt that ended makes of its delivery. */
function settled(action: 'deliver' | 'retry' | 'fail'): Exclude<DeliveryStatus, 'SENDING'> {
  return WEBHOOK_DELIVERY_LIFECYCLE.assertNext('SENDING', action) as Exclude<
    DeliveryStatus,
    'SENDING'
  >;
}

/**
 * What one POST to the receiver came to. The answer's body is not kept: the URL is the
 * tenant's to choose, and it may name a service on our internal network.
 */
export type AttemptResult =
  | { kind: 'response'; statusCode: number }
  /** No response: network failure, timeout, refused target, unreadable secret… */
  | { kind: 'error'; message: string }
  /** Cancelled because this instance is shutting down; the receiver may or may not have it. */
  | { kind: 'aborted' };

export interface AttemptOutcome {
  status: Exclude<DeliveryStatus, 'SENDING'>;
  /** For PENDING: when the next attempt is due. */
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
}

export const INTERRUPTED_BY_SHUTDOWN = 'tentativa interrompida: o serviço foi desligado';
export const INTERRUPTED_BY_CRASH =
  'tentativa interrompida: o worker parou antes de receber a resposta';

/**
 * A 2xx is delivered. Any other answer, and no answer, is retried after the schedule's delay for
 * the attempt just made (the first delay after the first attempt, …); once the schedule is used
 * up the delivery is FAILED. An attempt cut short by a shutdown goes back to the queue at once.
 */
export function outcomeOf(
  result: AttemptResult,
  attempt: number,
  retryScheduleMs: readonly number[],
  now: Date,
): AttemptOutcome {
  if (result.kind === 'aborted') {
    return {
      status: settled('retry'),
      nextAttemptAt: now,
      statusCode: null,
      error: INTERRUPTED_BY_SHUTDOWN,
    };
  }
  const statusCode = result.kind === 'response' ? result.statusCode : null;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
    return { status: settled('deliver'), nextAttemptAt: null, statusCode, error: null };
  }
  const error =
    result.kind === 'response' ? `o destino respondeu HTTP ${result.statusCode}` : result.message;
  const delay = retryScheduleMs[attempt - 1];
  if (delay === undefined) {
    return { status: settled('fail'), nextAttemptAt: null, statusCode, error };
  }
  return {
    status: settled('retry'),
    nextAttemptAt: new Date(now.getTime() + delay),
    statusCode,
    error,
  };
}

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  companyId: number;
  webhookId: number;
  outboxEventId: string;
  eventType: string;
  campaignId: number | null;
  /** This attempt's number (1 for the first). */
  attempts: number;
  url: string;
  secretEncrypted: string;
  /** Still within its grace period after a rotation; null otherwise. */
  previousSecretEncrypted: string | null;
  payload: Record<string, unknown>;
}

/** A page of a company's delivery log. */
export interface DeliveryFilter {
  page: number;
  size: number;
  status?: DeliveryStatus;
  campaignId?: number;
}

export interface DeliveryRow {
  id: string;
  event: string;
  campaignId: number | null;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
}

export interface AttemptRow {
  attempt: number;
  startedAt: Date;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
}
