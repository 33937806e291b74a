/**
 * Messages one lease sends back to back when they are due at once (zero intervals): fewer
 * claims and releases, while other campaigns still get their turn within a few seconds.
 */
export const MESSAGES_PER_LEASE = 50;

/** What the pauses are drawn from: the campaign's interval and its long pause. */
export interface PauseSettings {
  minInterval: number;
  maxInterval: number;
  /** Every `longPauseEvery` messages sent, a pause in [longPauseMin, longPauseMax] seconds. */
  longPauseEvery: number | null;
  longPauseMin: number | null;
  longPauseMax: number | null;
}

/** After a message went out: how long the campaign waits (its instance's others draw their own). */
export interface SendPauses {
  /** The campaign's pause, drawn in [minInterval, maxInterval]. */
  pauseSeconds: number;
  /**
   * Where the pause fell in [minInterval, maxInterval], 0–1: after the message, each campaign
   * of the instance waits its own [min, max] at that point (the instance's pause).
   */
  draw: number;
  /** Drawn in [longPauseMin, longPauseMax]; taken instead when a long pause is due. */
  longPauseSeconds: number;
}

/** The pauses after a message: uniform draws in [min, max] seconds, ms precision. */
export function drawPauses(
  settings: PauseSettings,
  random: () => number = Math.random,
): SendPauses {
  const draw = random();
  return {
    pauseSeconds: secondsAt(settings.minInterval, settings.maxInterval, draw),
    draw,
    longPauseSeconds:
      settings.longPauseEvery === null
        ? 0
        : secondsAt(settings.longPauseMin ?? 0, settings.longPauseMax ?? 0, random()),
  };
}

/** The campaign's pause in whole milliseconds. */
export function pauseMsOf(pauses: SendPauses): number {
  return Math.round(pauses.pauseSeconds * 1000);
}

/** How many messages one turn on the instance may send: its lease's, within today's quota. */
export function messagesPerTurn(quota: number | null): number {
  return Math.min(MESSAGES_PER_LEASE, quota ?? MESSAGES_PER_LEASE);
}

/** Whether the next message is due the moment this one was recorded (no pause of any kind). */
export function nextIsDueAtOnce(pauses: SendPauses, longPause: boolean): boolean {
  return pauses.pauseSeconds === 0 && !longPause;
}

/** The point `draw` (0–1) of [min, max] seconds, ms precision. */
function secondsAt(min: number, max: number, draw: number): number {
  return Math.round((min + draw * (max - min)) * 1000) / 1000;
}
