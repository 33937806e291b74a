import { connectionOf, LOGGED_OUT_STATUS } from './gateway-event';

/**
 * The shortest time between two applications of an instance's connection events; those that
 * arrive meanwhile gather and are applied as one at its end. An instance reconnecting in a loop
 * posts about 70 a second (all "connecting", recorded against Evolution API v2.3.6), which
 * would otherwise be as many state writes and campaign holds.
 */
export const CONNECTION_COALESCE_MS = 2_000;

/** One connection.update as stored: its `data` and when the gateway says it happened. */
export interface ConnectionEvent {
  data: Record<string, unknown>;
  at: Date;
}

/** What an instance's pending connection events amount to, applied at once. */
export interface CoalescedConnection<T extends ConnectionEvent = ConnectionEvent> {
  /** The event whose state wins. */
  latest: T;
  /** The latest state by the gateway's time: what the configuration shows. */
  state: string;
  reason: number | null;
  at: Date;
  /** What the instance's campaigns end with had every event been applied in order. */
  campaigns: 'release' | 'hold' | null;
  /** A logout among them: its pause is never undone by a later event, so it is never lost. */
  loggedOut: boolean;
}

/**
 * The latest state wins (by the gateway's time, arrival order between equal times); holds and
 * releases are settings, so only the last `open` or `close` matters; a logout pauses for good,
 * whatever follows it. Null when none of the events carries a state.
 */
export function coalesceConnections<T extends ConnectionEvent>(
  events: T[],
): CoalescedConnection<T> | null {
  const changes = events
    .map((event) => ({ change: connectionOf(event.data), event }))
    .filter((c): c is { change: NonNullable<typeof c.change>; event: T } => c.change !== null)
    .sort((a, b) => compareTimes(a.event.at, b.event.at));
  const latest = changes.at(-1);
  if (!latest) {
    return null;
  }
  const decisive = changes.filter((c) => c.change.state === 'open' || c.change.state === 'close');
  const last = decisive.at(-1);
  return {
    latest: latest.event,
    state: latest.change.state,
    reason: latest.change.reason,
    at: latest.event.at,
    campaigns:
      !last || isLogout(last.change) ? null : last.change.state === 'open' ? 'release' : 'hold',
    loggedOut: changes.some((c) => isLogout(c.change)),
  };
}

/**
 * The events worth storing from a batch: of one configuration's connection events, the latest,
 * the last `open` or `close` (it decides the campaigns' hold: a `close` followed by
 * `connecting` still holds them) and any logout — what coalesceConnections reads; every other
 * event as it came.
 */
export function withoutSupersededConnections<
  T extends { gatewayConfigId: number; event: string } & ConnectionEvent,
>(events: T[]): T[] {
  const latest = new Map<number, T>();
  const lastDecisive = new Map<number, T>();
  for (const event of events.filter((e) => e.event === 'connection.update')) {
    keepLater(latest, event);
    const state = connectionOf(event.data)?.state;
    if (state === 'open' || state === 'close') {
      keepLater(lastDecisive, event);
    }
  }
  return events.filter(
    (event) =>
      event.event !== 'connection.update' ||
      latest.get(event.gatewayConfigId) === event ||
      lastDecisive.get(event.gatewayConfigId) === event ||
      isLogout(connectionOf(event.data)),
  );
}

/** Keeps `event` as its configuration's entry unless the entry is later (arrival order on a tie). */
function keepLater<T extends { gatewayConfigId: number } & ConnectionEvent>(
  kept: Map<number, T>,
  event: T,
): void {
  const current = kept.get(event.gatewayConfigId);
  if (!current || compareTimes(event.at, current.at) >= 0) {
    kept.set(event.gatewayConfigId, event);
  }
}

function isLogout(change: { state: string; reason: number | null } | null): boolean {
  return change?.state === 'close' && change.reason === LOGGED_OUT_STATUS;
}

/** An unreadable time sorts first: it never hides a readable, later state. */
function compareTimes(a: Date, b: Date): number {
  const [left, right] = [a.getTime(), b.getTime()].map((ms) => (Number.isNaN(ms) ? -Infinity : ms));
  return left === right ? 0 : left < right ? -1 : 1;
}
