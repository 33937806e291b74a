/**
 * When the engine pauses a campaign that shows ban signals (a company setting; the campaigns
 * module applies it): `failuresInRow` sends failed one after another, or more than
 * `refusedPercent` % of the first `refusedSample` sends refused as numbers not on WhatsApp.
 */
export interface AutoPauseThresholds {
  failuresInRow: number;
  refusedPercent: number;
  refusedSample: number;
}

export const DEFAULT_AUTO_PAUSE: Readonly<AutoPauseThresholds> = Object.freeze({
  failuresInRow: 5,
  refusedPercent: 30,
  refusedSample: 50,
});

/** The inclusive bounds of each threshold, for the settings' validation and its description. */
export const AUTO_PAUSE_BOUNDS: Readonly<Record<keyof AutoPauseThresholds, [number, number]>> = {
  failuresInRow: [2, 100],
  refusedPercent: [1, 100],
  refusedSample: [10, 1000],
};

/** A company's thresholds, its own or the defaults (null: it never set them). */
export function autoPauseOf(stored: AutoPauseThresholds | null): AutoPauseThresholds {
  return stored ?? { ...DEFAULT_AUTO_PAUSE };
}
