import { Injectable } from '@nestjs/common';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { faultCode, faultReason, isDataFault } from '../../../common/errors/data-fault';
import { Metrics } from '../../../common/metrics/metrics';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { CampaignDeliveryEvents } from '../../campaigns/application/campaign-delivery-events';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { atOf, InboundMessages } from './inbound-messages';
import { CloudAccountEvents } from './cloud-account-events';
import { BlockedNumber, ReceiptEvents } from './receipt-events';
import { CoalescedConnection, coalesceConnections } from '../domain/connection-events';
import {
  eventData,
  GATEWAY_EVENTS_CHANNEL,
  GatewayEventsRepository,
  StoredGatewayEvent,
} from './ports/gateway-events.repository';

/**
 * Events one transaction applies (companies share it, claimDue): Meta's batched statuses came in
 * faster than 500 a step applied them; 2,000 spread each step's fixed costs four times as thin.
 */
export const STEP_EVENTS = 2000;
/**
 * After a partial batch the next step waits this long or for the intake's next announcement (at
 * most every 50 ms): started at once, 60 small steps a second paid seven round trips each.
 */
export const GATHER_MS = 200;
/** A receipt whose send is not recorded yet (it can beat the send's own answer) waits this long. */
const EARLY_RECEIPT_RETRY_MS = 2_000;
/** Configurations whose connection events one step applies. */
const CONNECTION_CONFIGS = 100;
/** Leased connection events come back after this if their processor dies before deleting them. */
const CONNECTION_LEASE_MS = 30_000;
/** Cloud API account events one step applies, and their lease (as the connection events'). */
const ACCOUNT_EVENTS = 20;
/**
 * An event that fails for a reason not its values' (a lock timeout, a trigger's error, a bug) is
 * tried MAX_FAULTS times in all, the next after FAULT_BACKOFF_MS × 2^(failures so far): 1, 2, 4,
 * 8 s; a cause that persists sets the event aside instead of failing forever.
 */
const MAX_FAULTS = 5;
/** How often ended reach-out locks are looked for (the worker's idle poll is 1 s). */
const LOCK_CHECK_MS = 1_000;
const FAULT_BACKOFF_MS = 1_000;

/**
 * What a batch's application counts in the metrics, taken after its commit: a batch that fails
 * is applied again bisected, and what it counted the first time never happened.
 */
interface AppliedCounts {
  refused: number;
  reconciled: number;
  replies: number;
  unmappedSenders: number;
}

interface Applied {
  /** The events to try again later (receipts whose message is not known yet). */
  waiting: Set<string>;
  counts: AppliedCounts;
  /** Cloud API numbers whose campaigns pause after the commit. */
  blocked: BlockedNumber[];
}

interface Bisection {
  waiting: Set<string>;
  counts: AppliedCounts;
  blocked: BlockedNumber[];
  setAside: StoredGatewayEvent[];
  retried: StoredGatewayEvent[];
}

/**
 * Processes stored gateway events. Receipts and replies go in batches, one transaction each,
 * receipts set-based; a batch that fails is applied again in halves (a savepoint each) down to
 * the events that fail on their own: set aside with their reason when it is their values'
 * fault, otherwise tried again with back-off and set aside after MAX_FAULTS failures, so that
 * they never block the others. Each instance's connection events are applied as one
 * (coalesceConnections), under the same rule. Every step is idempotent, so work done twice (a
 * crash before its commit) changes nothing more.
 */
@Injectable()
export class GatewayEventProcessor extends BackgroundWorker {
  private nextLockCheckAt = 0;

  constructor(
    private readonly events: GatewayEventsRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly campaigns: CampaignDeliveryEvents,
    private readonly receipts: ReceiptEvents,
    private readonly inbound: InboundMessages,
    private readonly accountEvents: CloudAccountEvents,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly metrics: Metrics,
    context: WorkerContext,
  ) {
    super(context, { name: 'gateway-events', idleMs: 1_000, wakeOn: GATEWAY_EVENTS_CHANNEL });
  }

  /** Connection events are applied even when the receipts' work fails; the step fails after. */
  async step(): Promise<number | null> {
    const outcomes = [
      await settled(() => this.applyMessages()),
      await settled(() => this.applyConnections()),
      await settled(() => this.applyAccountEvents()),
    ];
    await this.liftEndedLocks();
    const [messages, configs, accounts] = outcomes.map(valueOrThrow);
    if (messages === STEP_EVENTS || configs === CONNECTION_CONFIGS || accounts === ACCOUNT_EVENTS) {
      return 0;
    }
    const due = await this.events.msUntilNextDue();
    return messages > 0 && due !== null ? Math.max(due, GATHER_MS) : due;
  }

  /**
   * Reach-out locks whose cool-down is over end here, by this process's clock, at most once per
   * LOCK_CHECK_MS: the check is one indexed statement, and a lock lasts hours.
   */
  private async liftEndedLocks(): Promise<void> {
    const now = Date.now();
    if (now < this.nextLockCheckAt) {
      return;
    }
    this.nextLockCheckAt = now + LOCK_CHECK_MS;
    await this.gatewayConfigs.liftEndedReachOutLocks();
  }

  /**
   * The fast path is the whole batch at once; only a batch that fails is bisected, whatever the
   * error: which events it is, and whether it is their values' fault, only they alone tell.
   */
  private async applyMessages(): Promise<number> {
    try {
      const { claimed, counts, blocked } = await this.unitOfWork.run(async (tx) => {
        const batch = await this.events.claimDue(tx, STEP_EVENTS);
        const applied = await this.applyEvents(tx, batch);
        await this.settle(tx, batch, applied.waiting);
        return { claimed: batch.length, counts: applied.counts, blocked: applied.blocked };
      });
      this.countApplied(counts);
      await this.receipts.pauseBlocked(blocked);
      return claimed;
    } catch {
      const { claimed, setAside, counts, blocked } = await this.unitOfWork.run((tx) =>
        this.applyBisected(tx),
      );
      setAside.forEach((event) => this.metrics.countGatewayEventSetAside(event.event));
      this.countApplied(counts);
      await this.receipts.pauseBlocked(blocked);
      return claimed;
    }
  }

  private countApplied(counts: AppliedCounts): void {
    if (counts.refused > 0) {
      this.metrics.countMessages('failed', 'not_delivered', counts.refused);
    }
    this.metrics.countMessages('sent', 'reconciled', counts.reconciled);
    this.metrics.countReplies(counts.replies);
    this.metrics.countUnmappedSenders(counts.unmappedSenders);
  }

  /** The batch again, bisected (applyBisecting): the events that fail alone are left out. */
  private async applyBisected(
    tx: Transaction,
  ): Promise<Pick<Bisection, 'setAside' | 'counts' | 'blocked'> & { claimed: number }> {
    const batch = await this.events.claimDue(tx, STEP_EVENTS);
    const outcome: Bisection = {
      waiting: new Set(),
      counts: { refused: 0, reconciled: 0, replies: 0, unmappedSenders: 0 },
      blocked: [],
      setAside: [],
      retried: [],
    };
    await this.applyBisecting(tx, batch, outcome);
    const failed = new Set([...outcome.setAside, ...outcome.retried]);
    const applied = batch.filter((event) => !failed.has(event));
    await this.settle(tx, applied, outcome.waiting);
    return {
      claimed: batch.length,
      setAside: outcome.setAside,
      counts: outcome.counts,
      blocked: outcome.blocked,
    };
  }

  /**
   * The events in a savepoint; when they fail, each half alone, down to the single events that
   * fail (retriedAfterFault, else set aside): a bad event among 2,000 costs about 22 tries, not 2,000.
   * An error that leaves no savepoint to return to (a lost connection) fails the whole pass.
   */
  private async applyBisecting(
    tx: Transaction,
    events: StoredGatewayEvent[],
    outcome: Bisection,
  ): Promise<void> {
    if (events.length === 0) {
      return;
    }
    try {
      const applied = await this.events.inSavepoint(tx, () => this.applyEvents(tx, events));
      applied.waiting.forEach((id) => outcome.waiting.add(id));
      outcome.blocked.push(...applied.blocked);
      outcome.counts.refused += applied.counts.refused;
      outcome.counts.reconciled += applied.counts.reconciled;
      outcome.counts.replies += applied.counts.replies;
      outcome.counts.unmappedSenders += applied.counts.unmappedSenders;
      return;
    } catch (error) {
      if (events.length === 1) {
        if (await this.retriedAfterFault(events, error, tx)) {
          outcome.retried.push(events[0]);
        } else {
          await this.setAside(events[0], error, tx);
          outcome.setAside.push(events[0]);
        }
        return;
      }
    }
    const half = Math.ceil(events.length / 2);
    await this.applyBisecting(tx, events.slice(0, half), outcome);
    await this.applyBisecting(tx, events.slice(half), outcome);
  }

  private async applyEvents(tx: Transaction, events: StoredGatewayEvent[]): Promise<Applied> {
    const { waiting, refused, reconciled, blocked } = await this.receipts.apply(tx, events);
    const inbound = await this.inbound.apply(
      tx,
      events.filter((e) => e.event === 'messages.upsert'),
    );
    return { waiting, counts: { refused, reconciled, ...inbound }, blocked };
  }

  /** Applied events go; those waiting for their message are tried again a little later. */
  private async settle(
    tx: Transaction,
    events: StoredGatewayEvent[],
    waiting: Set<string>,
  ): Promise<void> {
    await this.events.delete(
      events.filter((e) => !waiting.has(e.id)).map((e) => e.id),
      tx,
    );
    await this.events.retryLater(tx, [...waiting], EARLY_RECEIPT_RETRY_MS);
  }

  /**
   * Events that failed together for a reason not their values' are tried again with back-off
   * until their MAX_FAULTS-th failure. Answers whether they were (if not, they are set aside).
   */
  private async retriedAfterFault(
    events: StoredGatewayEvent[],
    error: unknown,
    tx?: Transaction,
  ): Promise<boolean> {
    const faults = 1 + Math.max(...events.map((event) => event.faults));
    if (isDataFault(error) || faults >= MAX_FAULTS) {
      return false;
    }
    this.logger.warn(
      {
        eventId: events[0].id,
        events: events.length,
        companyId: events[0].companyId,
        event: events[0].event,
        fault: faultCode(error),
        faults,
      },
      'Gateway event failed: tried again later',
    );
    const ids = events.map((event) => event.id);
    await this.events.retryAfterFault(ids, FAULT_BACKOFF_MS, tx);
    return true;
  }

  /** Kept for an operator with its reason; the log names the event and the failure's kind only. */
  private async setAside(
    event: StoredGatewayEvent,
    error: unknown,
    tx?: Transaction,
  ): Promise<void> {
    this.logger.warn(
      {
        eventId: event.id,
        companyId: event.companyId,
        event: event.event,
        fault: faultCode(error),
        faults: event.faults,
      },
      'Gateway event set aside: it cannot be applied',
    );
    await this.events.setAside(event.id, faultReason(error), tx);
  }

  /**
   * Each configuration's pending connection events, leased together and applied as one: the
   * first after a quiet time at once, then at most once per CONNECTION_COALESCE_MS, so that a
   * reconnect storm is one state write and at most one hold per window.
   */
  private async applyConnections(): Promise<number> {
    const leased = await this.events.leaseConnections(CONNECTION_CONFIGS, CONNECTION_LEASE_MS);
    const byConfig = new Map<number, StoredGatewayEvent[]>();
    // In arrival order (the ids'), which decides between events of the same time.
    for (const event of leased.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))) {
      byConfig.set(event.gatewayConfigId, [...(byConfig.get(event.gatewayConfigId) ?? []), event]);
    }
    for (const [gatewayConfigId, events] of byConfig) {
      await this.applyConnection(gatewayConfigId, events);
    }
    return byConfig.size;
  }

  /**
   * The Cloud API's account events, each on its own (CloudAccountEvents), under the same rule
   * as connection events: one that fails is tried again with back-off, then set aside.
   */
  private async applyAccountEvents(): Promise<number> {
    const leased = await this.events.leaseAccountEvents(ACCOUNT_EVENTS, CONNECTION_LEASE_MS);
    for (const event of leased) {
      try {
        await this.accountEvents.apply(event);
      } catch (error) {
        if (!(await this.retriedAfterFault([event], error))) {
          await this.setAside(event, error);
          this.metrics.countGatewayEventSetAside(event.event);
        }
        continue;
      }
      await this.events.delete([event.id]);
    }
    return leased.length;
  }

  /**
   * Events that fail are tried again with back-off (retriedAfterFault); the latest, which holds
   * the state, is set aside when they cannot be, and the others it stands for go.
   */
  private async applyConnection(
    gatewayConfigId: number,
    events: StoredGatewayEvent[],
  ): Promise<void> {
    const coalesced = coalesceConnections(
      events.map((stored) => ({ data: eventData(stored.payload), at: atOf(stored), stored })),
    );
    let setAside: StoredGatewayEvent | null = null;
    if (coalesced) {
      try {
        await this.applyConnectionChange(gatewayConfigId, coalesced);
      } catch (error) {
        if (await this.retriedAfterFault(events, error)) {
          return;
        }
        setAside = coalesced.latest.stored;
        await this.setAside(setAside, error);
        this.metrics.countGatewayEventSetAside(setAside.event);
      }
    }
    await this.events.delete(events.filter((event) => event !== setAside).map((event) => event.id));
  }

  /** close holds the instance's campaigns at once; open releases them; a logout pauses them. */
  private async applyConnectionChange(
    gatewayConfigId: number,
    change: CoalescedConnection,
  ): Promise<void> {
    const recorded = await this.gatewayConfigs.recordInstanceState(
      gatewayConfigId,
      change.state,
      change.reason,
      change.at,
    );
    if (!recorded) {
      return;
    }
    if (change.loggedOut) {
      await this.campaigns.instanceLoggedOut(gatewayConfigId);
    }
    if (change.campaigns === 'release') {
      await this.campaigns.instanceOpened(gatewayConfigId);
    } else if (change.campaigns === 'hold') {
      await this.campaigns.instanceClosed(gatewayConfigId);
    }
  }
}

/** The work's outcome, its error included, so that the caller decides when to throw it. */
async function settled<T>(work: () => Promise<T>): Promise<PromiseSettledResult<T>> {
  return (await Promise.allSettled([work()]))[0];
}

function valueOrThrow<T>(outcome: PromiseSettledResult<T>): T {
  if (outcome.status === 'rejected') {
    throw outcome.reason;
  }
  return outcome.value;
}
