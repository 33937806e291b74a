import { Injectable } from '@nestjs/common';
import type { WebhookDeliveryOutcome } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import { Clock } from '../../../common/time/clock';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { AppConfig } from '../../../config/app-config.service';
import { ClaimedDelivery, DeliveryStatus, outcomeOf } from '../domain/webhook-delivery';
import { WebhookDeliveriesRepository } from '../infrastructure/webhook-deliveries.repository';
import { WebhookSender } from './ports/webhook-sender';
import { WebhookOutcomeBatcher } from './webhook-outcome.batcher';

/** The channel the OutboxWriter notifies on each commit that wrote events. */
export const OUTBOX_CHANNEL = 'outbox_events';
/** Attempts one worker has in flight at once. */
export const MAX_DELIVERIES_IN_FLIGHT = 64;
/** Poll fallback: the longest the loop sleeps when no notification comes. */
const IDLE_MS = 2_000;
const RECOVERY_EVERY_MS = 1_000;
const FULL_CHECK_EVERY_MS = 5 * 60_000;
/**
 * Time after the request's own budget (WEBHOOK_TIMEOUT_MS) for writing its outcome before the
 * lease runs out: a worker that dies mid-attempt holds the delivery for timeout + 5 s, then
 * another worker sends it again.
 */
const LEASE_MARGIN_MS = 5_000;
/** How the metrics count an attempt by the status it left its delivery in. */
const ATTEMPT_OUTCOME: Record<Exclude<DeliveryStatus, 'SENDING'>, WebhookDeliveryOutcome> = {
  DELIVERED: 'delivered',
  PENDING: 'retry',
  FAILED: 'failed',
};

/**
 * Delivers webhook events: claims due deliveries (SKIP LOCKED, with a lease), POSTs each one
 * signed, records the outcome and the attempt (outcomes that end together share one
 * statement), goes straight on with the next event of the same campaign when one is handed
 * over, and claims again as attempts end. Wakes on the outbox's NOTIFY, and polls as a
 * fallback. Per-campaign order is the repository's (claimDue, recordOutcomes); at least once
 * across crashes is the lease's (recoverAbandoned).
 */
@Injectable()
export class WebhookDeliveryWorker extends BackgroundWorker {
  private readonly leaseMs = this.config.webhookTimeoutMs + LEASE_MARGIN_MS;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly outcomes: WebhookOutcomeBatcher;
  private lastRecoveryAt = 0;
  private lastFullCheckAt = 0;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    context: WorkerContext,
  ) {
    super(context, {
      name: 'webhook-delivery',
      idleMs: IDLE_MS,
      wakeOn: OUTBOX_CHANNEL,
      queue: { name: 'webhook_deliveries', countDue: (cap) => deliveries.countDue(cap) },
    });
    this.outcomes = new WebhookOutcomeBatcher(deliveries, () =>
      this.shutdown.signal.aborted ? null : { leaseMs: this.leaseMs },
    );
  }

  protected override onStarted(): void {
    this.logger.log(
      {
        retryScheduleMs: this.config.webhookRetryScheduleMs,
        timeoutMs: this.config.webhookTimeoutMs,
      },
      'Webhook delivery started',
    );
  }

  /**
   * The requests in flight are cancelled and their outcomes written: back to the queue at once,
   * logged as interrupted by the shutdown.
   */
  protected override async drain(): Promise<void> {
    this.shutdown.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  protected async step(): Promise<number | null> {
    await this.housekeeping();
    const capacity = MAX_DELIVERIES_IN_FLIGHT - this.inFlight.size;
    const claimed = capacity > 0 ? await this.deliveries.claimDue(capacity, this.leaseMs) : [];
    for (const delivery of claimed) {
      this.start(delivery);
    }
    if (claimed.length > 0) {
      return 0;
    }
    // Full: the next attempt that ends wakes the loop.
    return capacity > 0 ? this.deliveries.msUntilNextDue() : null;
  }

  private start(delivery: ClaimedDelivery): void {
    const work = this.deliverInTurn(delivery)
      .catch((error: unknown) =>
        // The delivery stays SENDING; its lease runs out and it is attempted again.
        this.logger.error({ err: error }, 'Webhook attempt failed'),
      )
      .finally(() => {
        this.inFlight.delete(work);
        this.wake();
      });
    this.inFlight.add(work);
  }

  /** One attempt, then the next event of the same campaign while one is handed over. */
  private async deliverInTurn(first: ClaimedDelivery): Promise<void> {
    let delivery: ClaimedDelivery | null = first;
    while (delivery) {
      delivery = await this.attempt(delivery);
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<ClaimedDelivery | null> {
    const startedAt = Date.now();
    const result = await this.sender.send(
      delivery,
      this.config.webhookTimeoutMs,
      this.shutdown.signal,
    );
    const outcome = outcomeOf(
      result,
      delivery.attempts,
      this.config.webhookRetryScheduleMs,
      this.clock.now(),
    );
    const { recorded, next } = await this.outcomes.record(
      delivery,
      outcome,
      Date.now() - startedAt,
    );
    if (recorded) {
      this.metrics.countWebhookDeliveries(ATTEMPT_OUTCOME[outcome.status]);
    }
    if (!recorded) {
      this.logger.warn(
        { deliveryId: delivery.id, attempt: delivery.attempts },
        'Webhook attempt not recorded: its lease ran out (another worker took the delivery over) or the webhook was deleted',
      );
    } else if (outcome.status === 'FAILED') {
      this.logger.warn(
        {
          deliveryId: delivery.id,
          companyId: delivery.companyId,
          event: delivery.eventType,
          attempts: delivery.attempts,
          lastError: outcome.error,
        },
        'Webhook delivery failed for good',
      );
    }
    return next;
  }

  /**
   * Every second: takes back attempts of dead workers, and makes due a recent delivery whose
   * hand-over was missed. Every 5 minutes: the same over all deliveries, and fails what a
   * switched-off webhook held for 24 hours.
   */
  private async housekeeping(): Promise<void> {
    const now = Date.now();
    if (now - this.lastRecoveryAt < RECOVERY_EVERY_MS) {
      return;
    }
    this.lastRecoveryAt = now;
    const recovered = await this.deliveries.recoverAbandoned();
    if (recovered > 0) {
      this.logger.warn({ recovered }, 'Webhook attempts left by a stopped worker queued again');
    }
    const full = now - this.lastFullCheckAt >= FULL_CHECK_EVERY_MS;
    if (full) {
      this.lastFullCheckAt = now;
      this.metrics.countWebhookDeliveries('failed', await this.deliveries.failExpiredHeld());
    }
    const promoted = await this.deliveries.promoteWaiting({ recentOnly: !full });
    if (promoted > 0) {
      this.logger.log({ promoted }, 'Webhook deliveries whose turn had come made due');
    }
  }
}
