/**
 * How the service hears the number's answers (a company setting; docs/ARCHITECTURE.md,
 * "Replies, warm contacts and the reach-out lock"):
 * - the reach-out lock: `lockRefusals` messages WhatsApp refused among the instance's last
 *   `lockSample` sends to cold contacts lock it for `lockCooldownHours` (doubled when it locks
 *   again within a week);
 * - a contact is warm when the person wrote to the instance within `warmDays`;
 * - a message from the person within `replyWindowHours` after a campaign's message is a reply.
 */
export interface ReachOutSettings {
  lockRefusals: number;
  lockSample: number;
  lockCooldownHours: number;
  warmDays: number;
  replyWindowHours: number;
}

export const DEFAULT_REACH_OUT: Readonly<ReachOutSettings> = Object.freeze({
  lockRefusals: 3,
  lockSample: 20,
  lockCooldownHours: 24,
  warmDays: 28,
  replyWindowHours: 72,
});

/** The inclusive bounds of each setting, for the settings' validation and its description. */
export const REACH_OUT_BOUNDS: Readonly<Record<keyof ReachOutSettings, [number, number]>> = {
  lockRefusals: [1, 100],
  lockSample: [5, 500],
  lockCooldownHours: [1, 168],
  warmDays: [1, 365],
  replyWindowHours: [1, 720],
};

/** A company's settings, its own or the defaults (null: it never set them). */
export function reachOutOf(stored: ReachOutSettings | null): ReachOutSettings {
  return stored ?? { ...DEFAULT_REACH_OUT };
}
