/**
 * What the arrival times at a fake Meta say about a number's send rate: messages a second in a
 * window, the most in any one second (Meta's throughput limit), and how late each message came
 * behind a schedule of exactly the number's throughput.
 */
import { distribution, type Distribution } from '../pacing.bench';

export interface NumberArrivals {
  phoneNumberId: string;
  /** Epoch ms, any order. */
  times: number[];
}

export interface NumberRate {
  phoneNumberId: string;
  /** Messages that arrived in the window. */
  sent: number;
  /** The most messages in any 1-second span of the whole run, warm-up included. */
  maxInOneSecond: number;
  /** The same within the measured window only (the steady state, without the start). */
  maxInOneSecondInWindow: number;
  /** Arrival − (the window's first arrival + k / throughput), message k of the window, in ms. */
  lateness: Distribution;
}

export interface ArrivalFigures {
  sent: number;
  perSecond: number;
  /** The most any one number got in one second (each number's limit is its own). */
  maxInOneSecond: number;
  /** The same within the measured window only. */
  maxInOneSecondInWindow: number;
  /** Over every message of every number in the window. */
  lateness: Distribution;
  /** The worst number's p99 lateness. */
  worstNumberP99: number;
  /** Gaps between consecutive arrivals of one number in the window, all numbers. */
  gapMs: Distribution;
  /** Gaps of 20 ms or more: where a number stopped sending for a while (a turn's end, a claim). */
  gapsOver20ms: number;
  /** Messages a second in each 10 s of the window, all numbers: does the rate hold over time? */
  perSecondBy10s: number[];
  perNumber: NumberRate[];
}

/** The most values within any span [t, t + spanMs) of sorted `times`. */
export function mostWithin(times: number[], spanMs: number): number {
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last += 1) {
    while (times[last] - times[first] >= spanMs) {
      first += 1;
    }
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** Message k of the window is due at its first arrival + k / throughput seconds. */
function latenessOf(inWindow: number[], throughputPerSecond: number): number[] {
  const start = inWindow[0];
  return inWindow.map((at, k) => at - (start + (k * 1000) / throughputPerSecond));
}

function gapsOf(times: number[]): number[] {
  return times.slice(1).map((at, i) => at - times[i]);
}

/** The figures of `numbers` over [windowStart, windowEnd) (epoch ms). */
export function analyseArrivals(
  numbers: NumberArrivals[],
  window: { start: number; end: number },
  throughputPerSecond: number,
): ArrivalFigures {
  const allLateness: number[] = [];
  const allGaps: number[] = [];
  // Whole 10 s spans; the window's last few ms (it ends a hair after its length) join the last.
  const spanSeconds = (window.end - window.start) / 1000;
  const buckets = Array.from({ length: Math.max(1, Math.floor(spanSeconds / 10)) }, () => 0);
  const bucketOf = (at: number): number =>
    Math.min(buckets.length - 1, Math.floor((at - window.start) / 10_000));
  const perNumber = numbers.map(({ phoneNumberId, times }): NumberRate => {
    const sorted = [...times].sort((a, b) => a - b);
    const inWindow = sorted.filter((at) => at >= window.start && at < window.end);
    inWindow.forEach((at) => (buckets[bucketOf(at)] += 1));
    const lateness = latenessOf(inWindow, throughputPerSecond);
    // Not push(...list): a 100,000-message window would overflow the call's arguments.
    lateness.forEach((ms) => allLateness.push(ms));
    gapsOf(inWindow).forEach((ms) => allGaps.push(ms));
    return {
      phoneNumberId,
      sent: inWindow.length,
      maxInOneSecond: mostWithin(sorted, 1000),
      maxInOneSecondInWindow: mostWithin(inWindow, 1000),
      lateness: distribution(lateness),
    };
  });
  const sent = perNumber.reduce((sum, n) => sum + n.sent, 0);
  return {
    sent,
    perSecond: sent / ((window.end - window.start) / 1000),
    maxInOneSecond: Math.max(0, ...perNumber.map((n) => n.maxInOneSecond)),
    maxInOneSecondInWindow: Math.max(0, ...perNumber.map((n) => n.maxInOneSecondInWindow)),
    lateness: distribution(allLateness),
    worstNumberP99: Math.max(...perNumber.map((n) => n.lateness.p99)),
    gapMs: distribution(allGaps),
    gapsOver20ms: allGaps.filter((gap) => gap >= 20).length,
    perSecondBy10s: buckets.map((n, i) => {
      const seconds = i === buckets.length - 1 ? spanSeconds - i * 10 : 10;
      return Math.round((n / seconds) * 10) / 10;
    }),
    perNumber,
  };
}
