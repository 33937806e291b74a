import type { SendSignal } from './ban-signals';

/**
 * What one failed contact adds to the campaign's watched counters (see ban-signals.ts, which
 * reads them), each 0 or 1; the statement that fails the contact adds them only when the
 * contact's row moved.
 */
export interface WatchedCountsOfFailure {
  /** The failures in a row. */
  sendFailureStreak: number;
  /** The sends watched since the campaign started or was resumed. */
  watchedSends: number;
  /** The refused numbers among the first `refusedSample` watched sends. */
  watchedRefusals: number;
}

/**
 * A failure with a signal (a gateway call was made) lengthens the streak and is one more
 * watched send; a refused number counts while the sends watched before it are fewer than the
 * sample. A failure without a signal (no gateway call) says nothing and counts nowhere.
 */
export function watchedCountsOfFailure(
  signal: SendSignal,
  watchedSendsBefore: number,
  refusedSample: number,
): WatchedCountsOfFailure {
  if (signal === null) {
    return { sendFailureStreak: 0, watchedSends: 0, watchedRefusals: 0 };
  }
  const refusedInSample = signal === 'refused' && watchedSendsBefore < refusedSample;
  return { sendFailureStreak: 1, watchedSends: 1, watchedRefusals: refusedInSample ? 1 : 0 };
}
