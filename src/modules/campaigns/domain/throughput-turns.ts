import type { ClaimedCampaign } from './dispatch-records';
import { SendOutcome, THROTTLED_RETRY_MS } from './send-outcome';

/**
 * A turn at the number's throughput: a Cloud API number needs no pause against bans (Meta
 * limits it instead), so a campaign that set none sends at up to the number's messages a
 * second, evenly spaced, without waiting for one answer before the next send
 * (application/throughput-turns.ts). Pauses a person set are honoured: such a campaign goes
 * one message at a time like any other.
 */

/**
 * How long one turn lasts at most: a campaign keeps its number for this long, then the
 * number's other campaigns get their turn (round robin); long enough that the claim between
 * two turns costs about 1 % of the number's rate.
 */
export const THROUGHPUT_TURN_SECONDS = 10;

/**
 * How long the whole number rests after Meta says it is sending too fast (130429, 131056, and
 * the other throttling codes): as long as a throttled contact waits (send-outcome.ts).
 */
export const THROTTLED_REST_SECONDS = THROTTLED_RETRY_MS / 1000;

/**
 * Whether the claimed campaign's turn goes at its number's throughput: a Cloud API number (it
 * has one), no interval and no long pause set, and no warm-first order (which picks one contact
 * at a time, warm ones first).
 */
export function sendsAtThroughput(
  claim: Pick<
    ClaimedCampaign,
    'throughputPerSecond' | 'maxInterval' | 'longPauseEvery' | 'warmFirst'
  >,
): claim is typeof claim & { throughputPerSecond: number } {
  return (
    claim.throughputPerSecond !== null &&
    claim.maxInterval === 0 &&
    claim.longPauseEvery === null &&
    !claim.warmFirst
  );
}

/** The messages one turn may send: THROUGHPUT_TURN_SECONDS at the rate, within the quota (day, tier). */
export function throughputTurnSize(perSecond: number, quota: number | null): number {
  const turn = perSecond * THROUGHPUT_TURN_SECONDS;
  return quota === null ? turn : Math.max(0, Math.min(turn, quota));
}

/**
 * The contacts taken in one statement: a second's worth, fewer when the turn has fewer left,
 * so that taking them costs one statement a second and no contact waits SENDING for long.
 */
export function takeSize(perSecond: number, leftInTurn: number): number {
  return Math.max(0, Math.min(perSecond, leftInTurn));
}

/** When the turn's `index`-th message (from 0) is due, in ms after the turn began: evenly spaced. */
export function slotOffsetMs(index: number, perSecond: number): number {
  return (index * 1000) / perSecond;
}

/**
 * Whether an answer ends the turn at once, before the sends due after it: anything but a
 * delivery or one person's failure says something about the number, the account or the
 * campaign (Meta's throttling, a held account, an uncertain send, our own error).
 */
export function endsThroughputTurn(outcome: SendOutcome): boolean {
  return outcome.kind !== 'sent' && outcome.kind !== 'failed';
}

/**
 * When the turn's next message (its `sent`-th, from 0) goes, and the start its slots count
 * from after it: its slot, `startedAt + sent / rate`; when that is more than one interval
 * behind `now` (a late timer, a busy process), now, the slots after it counting from there:
 * a late turn never catches up in a burst faster than the number's rate.
 */
export function nextSlot(
  startedAt: number,
  sent: number,
  perSecond: number,
  now: number,
): { at: number; startedAt: number } {
  const at = startedAt + slotOffsetMs(sent, perSecond);
  if (now - at <= slotOffsetMs(1, perSecond)) {
    return { at, startedAt };
  }
  return { at: now, startedAt: now - slotOffsetMs(sent, perSecond) };
}
