import { Injectable } from '@nestjs/common';
import { GatewayEventsRepository, IncomingGatewayEvent } from './ports/gateway-events.repository';

/** Events stored per statement at most; more wait for the next one. */
const MAX_BATCH = 500;
/** Batches written at once: a new batch need not wait for the previous commit. */
const MAX_WRITES_IN_FLIGHT = 4;

interface Waiting {
  event: IncomingGatewayEvent;
  done: (error?: unknown) => void;
}

/**
 * Stores each event before its request is answered, batching the events that arrive while
 * writes are under way into one INSERT each: a burst of thousands a second costs tens of
 * statements a second, and every 200 still means "stored".
 */
@Injectable()
export class GatewayEventIntake {
  private queue: Waiting[] = [];
  private writesInFlight = 0;

  constructor(private readonly repository: GatewayEventsRepository) {}

  store(event: IncomingGatewayEvent): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({
        event,
        done: (error) =>
          error
            ? reject(error instanceof Error ? error : new Error('event not stored'))
            : resolve(),
      });
      this.writeNext();
    });
  }

  private writeNext(): void {
    if (this.queue.length === 0 || this.writesInFlight >= MAX_WRITES_IN_FLIGHT) {
      return;
    }
    const batch = this.queue.slice(0, MAX_BATCH);
    this.queue = this.queue.slice(batch.length);
    this.writesInFlight += 1;
    this.repository
      .store(batch.map((waiting) => waiting.event))
      .then(
        () => batch.forEach((waiting) => waiting.done()),
        (error: unknown) => batch.forEach((waiting) => waiting.done(error)),
      )
      .finally(() => {
        this.writesInFlight -= 1;
        this.writeNext();
      });
  }
}
