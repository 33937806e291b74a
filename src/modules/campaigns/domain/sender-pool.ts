import { progressStepOf } from './campaign-stats';
import type { CampaignStatus } from './campaign-status';

/**
 * A campaign on a pool of senders (docs/ARCHITECTURE.md, "Sender pools"). The campaign a person
 * sees is the pool's own row: it holds the definition and the status, answers the API, writes
 * the events, and never sends. Each sender is a campaign row of its own on one gateway
 * configuration, hidden from the API, which the engine sends like any other; every contact
 * belongs to exactly one sender's row, so a contact can never be sent by two numbers.
 */

/**
 * A sender has ended: it sends nothing more (COMPLETED and FAILED only leave through a person's
 * retry, of the whole pool). What its contacts still wait for is reconciliation.
 */
export const SENDER_ENDED_STATUSES: readonly CampaignStatus[] = [
  'COMPLETED',
  'CANCELLED',
  'FAILED',
];

/** The most numbers one campaign may send through. */
export const MAX_POOL_SENDERS = 20;

interface PoolMember {
  id: number;
  poolId: number | null;
}

/** The pool's own row: the campaign people see. */
export function isPool(campaign: PoolMember): boolean {
  return campaign.poolId !== null && campaign.poolId === campaign.id;
}

/** One sender of a pool: sends, but is not a campaign of its own for anyone outside. */
export function isPoolSender(campaign: PoolMember): boolean {
  return campaign.poolId !== null && campaign.poolId !== campaign.id;
}

/**
 * Why a sender of a pool was lost, which decides when it comes back: GATEWAY (logged out,
 * refused credentials, disconnected past the campaign's patience, our key no longer opening
 * its configuration) until its instance is seen open again; LOCKED (WhatsApp's reach-out lock
 * with cold contacts left) until the lock is over.
 */
export type SenderLoss = 'GATEWAY' | 'LOCKED';

/**
 * Whose the engine's stop is: 'sender', when the number itself cannot go on (a pool's sender is
 * lost and its contacts move to the others; a campaign on one number stops as before), or
 * 'campaign', when every number would fail alike (its media, its company, ban signals): the
 * whole pool stops.
 */
export type StopScope = 'sender' | 'campaign';

/** What the pool's response says of each sender. */
export type SenderState = 'SENDING' | 'PAUSED' | 'LOST' | 'DONE';

/** A sender's state as shown: lost first (it stays lost until it rejoins), then its status. */
export function senderStateOf(sender: { status: string; senderLostAt: Date | null }): SenderState {
  if (sender.senderLostAt) {
    return 'LOST';
  }
  switch (sender.status) {
    case 'ACTIVE':
    case 'SCHEDULED':
    case 'DRAFT':
      return 'SENDING';
    case 'PAUSED':
      return 'PAUSED';
    default:
      return 'DONE';
  }
}

/** What a campaign counted of its contacts (CampaignCounters' numbers). */
interface ContactCounts {
  totalContacts: number;
  sentContacts: number;
  failedContacts: number;
  deliveredContacts: number;
  readContacts: number;
  repliedContacts: number;
}

/** An ACTIVE pool as its supervisor reads it: its senders' summed counters and where they are. */
export interface PoolFigures extends ContactCounts {
  id: number;
  progressStep: number;
  /** Senders not over yet (sending, waiting or stopped). */
  sendersLeft: number;
  /** A sender the engine stopped for the whole campaign (its media, ban signals…), if any. */
  stoppedSenderId: number | null;
  /** A sender not lost yet whose number WhatsApp locked while it has cold contacts left. */
  lockedSenderId: number | null;
  /** A lost sender still holding contacts it cannot send: they go to the others. */
  lostSenderId: number | null;
  /** A lost sender whose cause is over: it takes its share again. */
  rejoiningSenderId: number | null;
}

/** What the supervisor does with an ACTIVE pool, the most pressing first. */
export type PoolMove =
  | { kind: 'complete' }
  | { kind: 'stop'; senderId: number }
  | { kind: 'lose'; senderId: number }
  | { kind: 'fail_over'; senderId: number }
  | { kind: 'rejoin'; senderId: number }
  | { kind: 'progress'; step: number }
  | { kind: 'none' };

/**
 * A pool completes once all its senders are over and stops when the engine stopped one of them
 * for the whole campaign; a sender whose number is locked is lost, a lost sender's contacts go
 * to the others (when none is left, the pool pauses: see SenderPools), a sender whose cause is
 * over comes back; otherwise the pool tells its progress in 10 % steps, from its senders' sums.
 */
export function poolMoveOf(pool: PoolFigures): PoolMove {
  if (pool.sendersLeft === 0) {
    return { kind: 'complete' };
  }
  if (pool.stoppedSenderId !== null) {
    return { kind: 'stop', senderId: pool.stoppedSenderId };
  }
  if (pool.lockedSenderId !== null) {
    return { kind: 'lose', senderId: pool.lockedSenderId };
  }
  if (pool.lostSenderId !== null) {
    return { kind: 'fail_over', senderId: pool.lostSenderId };
  }
  if (pool.rejoiningSenderId !== null) {
    return { kind: 'rejoin', senderId: pool.rejoiningSenderId };
  }
  const step = progressStepOf(pool);
  return step > pool.progressStep ? { kind: 'progress', step } : { kind: 'none' };
}

/** One sender of a pool, as the pool's response shows it. */
export interface PoolSender extends ContactCounts {
  poolId: number;
  id: number;
  gatewayConfigId: number;
  instance: string;
  status: string;
  senderLostAt: Date | null;
  senderLostReason: string | null;
  waitingReason: string | null;
  optedOutContacts: number;
  unknownOutcomeContacts: number;
}

/** The counters a pool shows: the sums of its senders'. */
export const POOL_SUMMED_COUNTERS = [
  'totalContacts',
  'sentContacts',
  'failedContacts',
  'deliveredContacts',
  'readContacts',
  'repliedContacts',
  'optedOutContacts',
  'unknownOutcomeContacts',
] as const;

/** The sums of the senders' counters, as the pool's own. */
export function poolCounters(
  senders: readonly PoolSender[],
): Record<(typeof POOL_SUMMED_COUNTERS)[number], number> {
  const sums = Object.fromEntries(POOL_SUMMED_COUNTERS.map((name) => [name, 0])) as Record<
    (typeof POOL_SUMMED_COUNTERS)[number],
    number
  >;
  for (const sender of senders) {
    for (const name of POOL_SUMMED_COUNTERS) {
      sums[name] += sender[name];
    }
  }
  return sums;
}
