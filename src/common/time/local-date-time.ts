import { DateTime } from 'luxon';

const LOCAL_FORMAT = "yyyy-MM-dd'T'HH:mm:ss";

/**
 * Zone offsets change only at instants on a quarter hour (UTC) for the dates a campaign has,
 * so one lookup per zone and quarter hour serves every date-time in it. luxon's lookup goes
 * through Intl.DateTimeFormat#formatToParts, about 15 µs: a page of 20 campaigns, five dates
 * each, spent 1.5 ms of the request thread on it.
 */
const OFFSET_BUCKET_MS = 15 * 60_000;
const MAX_CACHED_OFFSETS = 10_000;
const offsetMinutesByBucket = new Map<string, number>();

function offsetMinutes(epochMs: number, zone: string): number {
  const bucket = Math.floor(epochMs / OFFSET_BUCKET_MS);
  const key = `${zone} ${bucket}`;
  let offset = offsetMinutesByBucket.get(key);
  if (offset === undefined) {
    offset = DateTime.fromMillis(bucket * OFFSET_BUCKET_MS, { zone }).offset;
    if (offsetMinutesByBucket.size >= MAX_CACHED_OFFSETS) {
      offsetMinutesByBucket.clear();
    }
    offsetMinutesByBucket.set(key, offset);
  }
  return offset;
}

/** Campaign and automation bodies carry local date-times without zone (docs/API-RULES.md §1). */
export function formatLocalDateTime(date: Date | null | undefined, zone: string): string | null {
  if (!date) {
    return null;
  }
  const epochMs = date.getTime();
  const local = new Date(epochMs + offsetMinutes(epochMs, zone) * 60_000);
  const year = local.getUTCFullYear();
  if (year < 1000 || year > 9999) {
    return DateTime.fromJSDate(date, { zone }).toFormat(LOCAL_FORMAT);
  }
  // The wall-clock fields, read in UTC from the shifted instant: yyyy-MM-ddTHH:mm:ss.
  return local.toISOString().slice(0, 19);
}

/**
 * Reads `YYYY-MM-DDTHH:mm` or `YYYY-MM-DDTHH:mm:ss` as a wall-clock time in `zone`. Returns
 * null for anything else, including times that do not exist there (a daylight-saving gap).
 */
export function parseLocalDateTime(text: string, zone: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) {
    return null;
  }
  const parsed = DateTime.fromISO(text, { zone });
  if (!parsed.isValid) {
    return null;
  }
  const roundTrip = parsed.toFormat(text.length === 16 ? "yyyy-MM-dd'T'HH:mm" : LOCAL_FORMAT);
  return roundTrip === text ? parsed.toJSDate() : null;
}
