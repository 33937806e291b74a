import { Injectable } from '@nestjs/common';
import {
  GatewayEventsRepository,
  IncomingGatewayEvent,
} from '../infrastructure/gateway-events.repository';

/** Events stored per statement at most; more wait for the next one. */
const MAX_BATCH = 500;

interface Waiting {
  event: IncomingGatewayEvent;
  done: (error?: unknown) => void;
}

/**
 * Stores each event before its request is answered, batching the events that arrive while a
 * write is under way into one INSERT: a burst of thousands a second costs a few statements a
 * second, and every 200 still means "stored".
 */
@Injectable()
export class GatewayEventIntake {
  private queue: Waiting[] = [];
  private writing = false;

  constructor(private readonly repository: GatewayEventsRepository) {}

  store(event: IncomingGatewayEvent): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ event, done: (error) => (error ? reject(error) : resolve()) });
      if (!this.writing) {
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, MAX_BATCH);
      this.queue = this.queue.slice(batch.length);
      try {
        await this.repository.store(batch.map((waiting) => waiting.event));
        batch.forEach((waiting) => waiting.done());
      } catch (error) {
        batch.forEach((waiting) => waiting.done(error));
      }
    }
    this.writing = false;
  }
}
