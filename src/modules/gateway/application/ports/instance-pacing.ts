/**
 * The pace of one gateway instance (a gateway configuration), whoever sends through it:
 * campaigns and automation runs. One sender at a time holds the instance; a sender sends only
 * once the instance has been quiet for its own pause since its last message, and the
 * instance sends at most its figure of the day (daily limit, warm-up). docs/ARCHITECTURE.md,
 * "Keeping numbers safe".
 */
export abstract class InstancePacing {
  /**
   * Holds the instance for `holder` for at most `holdSeconds` when the sender's pause after
   * the instance's last message is over (its `pause` range, at the point the last message's
   * pause was drawn), nobody else holds it, and its figure of the day is not reached; otherwise
   * says why and when to look again.
   */
  abstract hold(
    gatewayConfigId: number,
    holder: string,
    holdSeconds: number,
    pause: PauseRange,
  ): Promise<SlotAnswer>;

  /** Ends `holder`'s hold on the instance, with what its turn came to. */
  abstract release(gatewayConfigId: number, holder: string, turn: InstanceTurnEnd): Promise<void>;

  /** Ends the holds of workers whose process died (their liveness lock is gone): at once. */
  abstract releaseHoldsOfGoneWorkers(): Promise<number>;

  /**
   * What each of the company's instances `gatewayConfigIds` sent today and why it waits, for a
   * person (GET …/usage), in one query however many: by configuration id, none for an id that
   * is not the company's.
   */
  abstract usageOf(
    companyId: number,
    gatewayConfigIds: number[],
  ): Promise<Map<number, InstanceUsage>>;
}

/** A sender's pause between two messages of the instance, in seconds (min = max: a fixed one). */
export interface PauseRange {
  minSeconds: number;
  maxSeconds: number;
}

/** What a turn on the instance came to, as its hold ends. */
export interface InstanceTurnEnd {
  /** Messages that went out or may have: counted for the instance's day. */
  sent: number;
  /**
   * Where the pause after the turn's last gateway call falls in the [min, max] of each campaign
   * of the instance (0–1): each waits its own pause at that point before it sends. Null or
   * absent: no call was made that a pause should follow (unless messages were sent: 0).
   */
  pauseDraw?: number | null;
  /**
   * Seconds nobody may send through the instance after the turn (Meta asked the number to slow
   * down: throughput-turns.ts); absent: it may send again once its pause is over.
   */
  restSeconds?: number | null;
}

export type SlotAnswer =
  /**
   * `quota`: messages still allowed (null: no limit): today's, and on a Cloud API number its
   * tier's room (DAILY_LIMIT covers both).
   */
  | { held: true; quota: number | null }
  | { held: false; reason: 'BUSY'; retryAt: Date }
  | { held: false; reason: 'DAILY_LIMIT'; retryAt: Date };

export interface InstanceUsage {
  /** The local day (APP_TIMEZONE) the counts are of, YYYY-MM-DD. */
  day: string;
  messagesToday: number;
  dailyLimit: number | null;
  /** The warm-up's figure of the day; null without warm-up. */
  warmupLimitToday: number | null;
  /** The lower of the two: what the instance may send today; null: no limit. */
  limitToday: number | null;
  /** A Cloud API number's tier: unique people it may reach in a rolling 24 h; null: no cap. */
  recipientCap: number | null;
  /** The people its turns counted in that window (with a cap; null without). */
  recipientsLast24h: number | null;
  /** The day of the warm-up, counted from the instance's first send (1 on that day). */
  warmupDay: number | null;
  /** When the instance last sent (the end of its last message's send); null: never. */
  lastMessageAt: Date | null;
  firstSendAt: Date | null;
}
