/**
 * WhatsApp's reach-out lock (error 463, NackCallerReachoutTimelocked): for a while the number
 * may not start conversations. COLD: it sends only to warm contacts (people who wrote to it
 * lately); ALL: its messages to warm contacts were refused too, so it sends nothing.
 */
export type ReachOutScope = 'COLD' | 'ALL';

/** WhatsApp's code for it (NackCallerReachoutTimelocked), in a nack's messageStubParameters. */
export const REACHOUT_LOCKED_CODE = '463';

/** What locked it: a refusal that carried 463, refusals clustering, or a warm contact refused. */
export type ReachOutCause = 'NACK_463' | 'REFUSALS' | 'WARM_REFUSED';

export interface ReachOutLock {
  scope: ReachOutScope;
  cause: ReachOutCause;
  lockedAt: Date;
  lockedUntil: Date;
  /** How long it was set for: a lock within a week of the last one lasts twice that. */
  seconds: number;
}

/** The refusals of one instance's messages a batch of receipts brought. */
export interface InstanceRefusals {
  /** Whether one carried WhatsApp's code 463. */
  reachOutCode: boolean;
  /** Whether one was a message to a warm contact. */
  warm: boolean;
  /** Refused messages among the instance's last sends to cold contacts (the sample). */
  coldRefusedInSample: number;
}

/** The lock's columns as stored (`gateway_configs.reachout_lock_*`); a null scope is no lock. */
export interface StoredReachOutLock {
  scope: ReachOutScope | null;
  cause: ReachOutCause | null;
  lockedAt: Date | null;
  lockedUntil: Date | null;
  seconds: number | null;
}

/** The lock in force as stored, or null; `previous`: the last lock's start and length, kept after it. */
export function reachOutLockOf(stored: StoredReachOutLock): {
  current: ReachOutLock | null;
  previous: Pick<ReachOutLock, 'lockedAt' | 'seconds'> | null;
} {
  const previous =
    stored.lockedAt && stored.seconds !== null
      ? { lockedAt: stored.lockedAt, seconds: stored.seconds }
      : null;
  const current =
    stored.scope && stored.lockedUntil && previous
      ? {
          scope: stored.scope,
          cause: stored.cause ?? 'REFUSALS',
          lockedUntil: stored.lockedUntil,
          ...previous,
        }
      : null;
  return { current, previous };
}

const REPEAT_WITHIN_MS = 7 * 24 * 3_600_000;
/** A doubled lock never exceeds a month: past that a person should look at the number. */
const MAX_LOCK_SECONDS = 30 * 24 * 3_600;

/**
 * What the refusals call for, given the lock in force (null: none): a new lock, a wider one
 * (COLD to ALL, same end), or nothing (null). 463 locks at once; a warm contact refused while
 * locked, or with 463, stops everything; otherwise `threshold` refusals in the sample lock.
 */
export function lockCalledFor(
  refusals: InstanceRefusals,
  current: ReachOutLock | null,
  threshold: number,
): { scope: ReachOutScope; cause: ReachOutCause } | null {
  const wanted = wantedLock(refusals, current !== null, threshold);
  if (!wanted) {
    return null;
  }
  if (current && (current.scope === 'ALL' || wanted.scope === 'COLD')) {
    return null;
  }
  return wanted;
}

function wantedLock(
  refusals: InstanceRefusals,
  locked: boolean,
  threshold: number,
): { scope: ReachOutScope; cause: ReachOutCause } | null {
  if (refusals.warm && (locked || refusals.reachOutCode)) {
    return { scope: 'ALL', cause: refusals.reachOutCode ? 'NACK_463' : 'WARM_REFUSED' };
  }
  if (refusals.reachOutCode) {
    return { scope: 'COLD', cause: 'NACK_463' };
  }
  return refusals.coldRefusedInSample >= threshold ? { scope: 'COLD', cause: 'REFUSALS' } : null;
}

/**
 * The lock from `now`: the company's cool-down, or twice the last lock's when that one began
 * within a week. A wider lock over one in force keeps its start and end.
 */
export function startLock(
  wanted: { scope: ReachOutScope; cause: ReachOutCause },
  previous: Pick<ReachOutLock, 'lockedAt' | 'seconds'> | null,
  current: ReachOutLock | null,
  now: Date,
  cooldownSeconds: number,
): ReachOutLock {
  if (current) {
    return { ...current, scope: wanted.scope, cause: wanted.cause };
  }
  const repeated =
    previous !== null && now.getTime() - previous.lockedAt.getTime() < REPEAT_WITHIN_MS;
  const seconds = repeated
    ? Math.min(MAX_LOCK_SECONDS, Math.max(cooldownSeconds, previous.seconds * 2))
    : cooldownSeconds;
  return {
    ...wanted,
    lockedAt: now,
    lockedUntil: new Date(now.getTime() + seconds * 1000),
    seconds,
  };
}

/** The lock in force at `now`, or null when there is none or it ran out. */
export function lockInForce(lock: ReachOutLock | null, now: Date): ReachOutLock | null {
  return lock && lock.lockedUntil.getTime() > now.getTime() ? lock : null;
}
