import { AUTO_PAUSE_BOUNDS, AutoPauseThresholds } from '../../../common/messaging/auto-pause';

/** What a finished send says about the number's standing with WhatsApp. */
export type SendSignal =
  /** The number is not on WhatsApp: a list of such numbers is a strong ban signal. */
  | 'refused'
  /** The gateway called and the message did not go out. */
  | 'failed'
  /** No gateway call was made (a blocked number, a blank message): it says nothing. */
  | null;

/** A campaign's watched sends (reset when a person resumes it). */
export interface WatchedSends {
  /** Sends that failed one after another, up to the last one. */
  sendFailureStreak: number;
  /** Sends made since the campaign started or was resumed. */
  watchedSends: number;
  /** Refused numbers among the first `refusedSample` of them. */
  watchedRefusals: number;
  totalContacts: number;
}

/**
 * The smallest sample judged by its share of refused numbers: below it one refused number
 * would already be a third of a three-contact campaign. Smaller campaigns are judged by the
 * failures in a row only.
 */
const SMALLEST_JUDGED_SAMPLE = AUTO_PAUSE_BOUNDS.refusedSample[0];

/**
 * Why the campaign must be paused for a person to look (the pause reason, in Portuguese), or
 * null. The refused share is over the first `refusedSample` sends, or all of a smaller
 * campaign; it pauses as soon as it is certain, without waiting for the sample to fill.
 */
export function banSignalOf(watched: WatchedSends, thresholds: AutoPauseThresholds): string | null {
  if (watched.sendFailureStreak >= thresholds.failuresInRow) {
    return `${watched.sendFailureStreak} envios seguidos falharam, um sinal de risco de bloqueio do número`;
  }
  const sample = Math.min(thresholds.refusedSample, watched.totalContacts);
  if (
    sample >= SMALLEST_JUDGED_SAMPLE &&
    watched.watchedRefusals * 100 > thresholds.refusedPercent * sample
  ) {
    return `mais de ${thresholds.refusedPercent}% dos primeiros ${sample} envios foram para números fora do WhatsApp, um sinal de risco de bloqueio do número`;
  }
  return null;
}
