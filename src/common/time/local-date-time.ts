import { DateTime } from 'luxon';

const LOCAL_FORMAT = "yyyy-MM-dd'T'HH:mm:ss";

/** Campaign and automation bodies carry local date-times without zone (docs/API-RULES.md §1). */
export function formatLocalDateTime(date: Date | null | undefined, zone: string): string | null {
  if (!date) {
    return null;
  }
  return DateTime.fromJSDate(date, { zone }).toFormat(LOCAL_FORMAT);
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
