import type { AttemptOutcome, ClaimedDelivery } from '../domain/webhook-delivery';
import type { WebhookDeliveriesRepository } from '../infrastructure/webhook-deliveries.repository';

export interface RecordedAttempt {
  /** False when the delivery was taken over by another worker (its lease ran out). */
  recorded: boolean;
  /** The next event of the same campaign, already claimed for this worker. */
  next: ClaimedDelivery | null;
}

interface Entry {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  durationMs: number;
  resolve: (result: RecordedAttempt) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 100;

/**
 * Writes attempt outcomes in batches: the attempts that end in the same turn of the event
 * loop share one statement. Under load that is one round trip for many deliveries; alone, an
 * outcome is written at the end of the current turn, without waiting.
 */
export class WebhookOutcomeBatcher {
  private queue: Entry[] = [];
  private scheduled = false;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    /** Null once the worker stops: finished deliveries then only make their successor due. */
    private readonly handOver: () => { leaseMs: number } | null,
  ) {}

  record(
    delivery: ClaimedDelivery,
    outcome: AttemptOutcome,
    durationMs: number,
  ): Promise<RecordedAttempt> {
    return new Promise((resolve, reject) => {
      this.queue.push({ delivery, outcome, durationMs, resolve, reject });
      if (this.queue.length >= MAX_BATCH) {
        this.flush();
      } else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) {
      return;
    }
    this.deliveries.recordOutcomes(batch, this.handOver()).then(
      ({ recorded, next }) => {
        for (const entry of batch) {
          entry.resolve({
            recorded: recorded.has(entry.delivery.id),
            next: next.get(entry.delivery.id) ?? null,
          });
        }
      },
      (error: unknown) => {
        for (const entry of batch) {
          entry.reject(error);
        }
      },
    );
  }
}
