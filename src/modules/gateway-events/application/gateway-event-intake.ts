import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { withoutSupersededConnections } from '../domain/connection-events';
import { unauthorizedEvent } from '../domain/gateway-event';
import {
  eventData,
  eventTime,
  GatewayEventsRepository,
  IncomingGatewayEvent,
} from './ports/gateway-events.repository';

/** Events stored per statement at most; more wait for the next one. */
const MAX_BATCH = 500;
/**
 * Batches written at once: a new batch need not wait for the previous commit, and the two
 * commit together (one WAL flush). Four made batches half as large, so twice the statements,
 * each a round trip that wakes PostgreSQL, and took fewer events a second; one alone left
 * each event waiting for two commits.
 */
const MAX_WRITES_IN_FLIGHT = 2;
/**
 * The shortest time between two NOTIFYs: each costs a commit and wakes every processor, which
 * under a steady flow is already at work (its steps follow one another while events are due).
 */
const ANNOUNCE_INTERVAL_MS = 50;
/**
 * Events waiting for a write, at most: past it an event is a 503, which Evolution retries
 * later, instead of memory that grows as fast as anyone with a secret can post.
 */
const MAX_WAITING = 10 * MAX_BATCH;

interface Waiting {
  event: IncomingGatewayEvent;
  done: (error?: unknown) => void;
}

/**
 * Stores each event before its request is answered, batching the events that arrive while
 * writes are under way into one INSERT each: a burst of thousands a second costs tens of
 * statements a second, and every 200 still means "stored" (or superseded: of one
 * configuration's connection events in a batch, only the latest, the last open or close and any logout are written,
 * which is all the processor would keep, withoutSupersededConnections). A batch
 * that fails is written again event by event, so that one event that cannot be stored fails
 * only its own request. An event whose configuration was deleted (or stopped tracking) after
 * the gate let it in is not written and is a 401, like the gate's answer a moment later. When
 * MAX_WAITING events already wait, the next is refused with 503 at once. Stored batches are
 * announced to the processors apart (announce), one NOTIFY at a time.
 */
@Injectable()
export class GatewayEventIntake {
  private queue: Waiting[] = [];
  private writesInFlight = 0;
  /** One NOTIFY at a time: batches stored meanwhile are announced by the next one, a little later. */
  private announcing = false;
  private announceAgain = false;

  constructor(private readonly repository: GatewayEventsRepository) {}

  store(event: IncomingGatewayEvent): Promise<void> {
    if (this.queue.length >= MAX_WAITING) {
      return Promise.reject(
        new DomainError(
          'GATEWAY_EVENTS.BUSY',
          'unavailable',
          'Eventos demais aguardando gravação; tente novamente em instantes',
        ),
      );
    }
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
    void this.write(batch).finally(() => {
      this.writesInFlight -= 1;
      this.writeNext();
    });
  }

  private async write(batch: Waiting[]): Promise<void> {
    const now = new Date();
    const kept = withoutSupersededConnections(
      batch.map(({ event }) => ({
        gatewayConfigId: event.gatewayConfigId,
        event: event.event,
        data: eventData(event.payload),
        at: eventTime(event.payload, now),
        stored: event,
      })),
    );
    try {
      const live = await this.repository.store(kept.map((k) => k.stored));
      batch.forEach((waiting) => this.answer(waiting, live));
      this.announce();
    } catch (error) {
      if (batch.length === 1) {
        batch[0].done(error);
        return;
      }
      // One at a time: the fallback of a rare failure must not take the whole pool.
      for (const waiting of batch) {
        await this.repository.store([waiting.event]).then(
          (live) => this.answer(waiting, live),
          (alone: unknown) => waiting.done(alone),
        );
      }
      this.announce();
    }
  }

  /**
   * Wakes the processors once the events are stored, apart from storing them (see
   * GatewayEventsRepository.store); a failed NOTIFY only delays them until their next poll.
   */
  private announce(): void {
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = true;
    void this.repository
      .announce()
      .catch(() => undefined)
      .finally(() => setTimeout(() => this.announceNext(), ANNOUNCE_INTERVAL_MS).unref());
  }

  private announceNext(): void {
    this.announcing = false;
    if (this.announceAgain) {
      this.announceAgain = false;
      this.announce();
    }
  }

  /** Stored (or superseded) when its configuration took the batch; a 401 otherwise. */
  private answer(waiting: Waiting, live: Set<number>): void {
    waiting.done(live.has(waiting.event.gatewayConfigId) ? undefined : unauthorizedEvent());
  }
}
