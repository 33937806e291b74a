import type { AttemptOutcome, DeliveryStatus } from '../../domain/webhook-delivery';
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

/**
 * The delivery queue's SQL. Deliveries are created by the outbox trigger (see the
 * CreateWebhooks migration); a worker claims due ones with SKIP LOCKED and a lease, and a
 * delivery whose lease ran out (its worker died mid-attempt) is put back: at least once.
 */
export abstract class WebhookDeliveriesRepository {
  /**
   * Marks up to `limit` due deliveries SENDING (an attempt begins) and returns them. Only the
   * earliest unfinished delivery of each (webhook, campaign) may go: event N+1 of a campaign
   * waits until event N is delivered or finally failed. The NOT EXISTS guards that order by
   * itself; most deliveries that must wait are not even due (next_attempt_at 'infinity', see
   * the CreateWebhooks trigger), which keeps this scan short. Webhooks switched off hold theirs.
   */
  abstract claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /**
   * Writes the outcomes of several attempts and their lines in the attempt log, in one
   * statement. When a delivery is finished (DELIVERED or FAILED), the next delivery of its
   * campaign becomes due; with `handOver` (and the webhook on), it is claimed for this worker
   * at once and returned under the finished delivery's id, so an ordered stream goes on
   * without a trip through the claim. An attempt missing from `recorded` was no longer this
   * worker's (its lease ran out and it was taken over): nothing was written for it.
   */
  abstract recordOutcomes(
    attempts: ReadonlyArray<{
      delivery: Pick<ClaimedDelivery, 'id' | 'attempts'>;
      outcome: AttemptOutcome;
      durationMs: number;
    }>,
    handOver: { leaseMs: number } | null,
  ): Promise<{ recorded: Set<string>; next: Map<string, ClaimedDelivery> }>;
  /**
   * Deliveries left SENDING by a worker that died (lease ran out) go back to the queue, due at
   * once; the cut-short attempt is logged as interrupted. The receiver may have got it: it
   * de-duplicates on webhook-id.
   */
  abstract recoverAbandoned(): Promise<number>;
  /**
   * Deliveries held by a switched-off webhook fail once their event is 24 hours old (the
   * younger ones of the same campaign are made due when it is switched on again).
   */
  abstract failExpiredHeld(): Promise<number>;
  /**
   * Milliseconds until the next retry falls due or a lease runs out (null: nothing waits).
   * Deliveries already due but waiting for an earlier event of their campaign are not
   * counted: the attempt they wait for wakes the worker when it ends.
   */
  abstract msUntilNextDue(): Promise<number | null>;
  /**
   * For the metrics: PENDING deliveries due now whose webhook is on, counted up to `cap` over
   * the due index (those waiting for an earlier event of their campaign are not due).
   */
  abstract countDue(cap: number): Promise<number>;
  /** After the webhook was edited (new URL, switched on): waiting retries are due at once. */
  abstract makePendingDueNow(companyId: number): Promise<void>;
  /**
   * Makes due the deliveries that wait ('infinity') although nothing before them in their
   * campaign is unfinished. The worker hands over to the next delivery when it finishes one;
   * this catches the rare miss, when an event's transaction saw its predecessor unfinished
   * while a worker was finishing it (each saw the other's work uncommitted), and what a
   * switched-off webhook held. `recentOnly`: deliveries created in the last minutes (the race
   * can only strike at creation), which keeps the frequent check cheap.
   */
  abstract promoteWaiting(scope?: { recentOnly?: boolean; companyId?: number }): Promise<number>;
  abstract list(
    companyId: number,
    filter: DeliveryFilter,
  ): Promise<{ items: DeliveryRow[]; total: number }>;
  abstract findOne(companyId: number, id: string): Promise<DeliveryRow | null>;
  abstract attempts(companyId: number, deliveryId: string): Promise<AttemptRow[]>;
}
