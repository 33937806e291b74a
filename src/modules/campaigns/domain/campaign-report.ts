import { DateTime } from 'luxon';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { CONTACT_FAILURE_KINDS, type ContactFailureKind } from './contact-failure-kind';
import {
  type BillableMessages,
  noBillableMessages,
  PRICED_CATEGORIES,
} from '../../../common/messaging/message-prices';

/** The longest span the company report covers, in days counted inclusively. */
export const REPORT_MAX_DAYS = 92;
/** The span the company report covers when `from` is not given: the last 30 days, today included. */
export const REPORT_DEFAULT_DAYS = 30;

/** What happened to a set of contacts: what the reports count for a campaign, a sender or a day. */
export interface FunnelCounts {
  total: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  optedOut: number;
  failed: number;
  failedByKind: Record<ContactFailureKind, number>;
  /** Cloud API messages Meta charged for, by the category they are priced at. */
  billable: BillableMessages;
}

/** The shares of a funnel, in percent with one decimal. */
export interface FunnelRates {
  deliveryRate: number;
  readRate: number;
  replyRate: number;
  optOutRate: number;
  /** Failed among the contacts with an outcome (sent or failed). */
  failureRate: number;
}

/** A share in percent with one decimal, as every rate of the API is written; 0 when there is no whole. */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
}

export function ratesOf(funnel: FunnelCounts): FunnelRates {
  return {
    deliveryRate: percentOf(funnel.delivered, funnel.sent),
    readRate: percentOf(funnel.read, funnel.sent),
    replyRate: percentOf(funnel.replied, funnel.sent),
    optOutRate: percentOf(funnel.optedOut, funnel.sent),
    failureRate: percentOf(funnel.failed, funnel.sent + funnel.failed),
  };
}

/** Every failure kind with its count, 0 for those the database did not name. */
export function failedByKindOf(
  counted: Partial<Record<string, number>>,
): Record<ContactFailureKind, number> {
  return Object.fromEntries(
    CONTACT_FAILURE_KINDS.map((kind) => [kind, Number(counted[kind] ?? 0)]),
  ) as Record<ContactFailureKind, number>;
}

/** Every priced category with its count, 0 for those the database did not name. */
export function billableOf(counted: Partial<Record<string, number>>): BillableMessages {
  return Object.fromEntries(
    PRICED_CATEGORIES.map((category) => [category, Number(counted[category] ?? 0)]),
  ) as BillableMessages;
}

export function emptyFunnel(): FunnelCounts {
  return {
    total: 0,
    sent: 0,
    delivered: 0,
    read: 0,
    replied: 0,
    optedOut: 0,
    failed: 0,
    failedByKind: failedByKindOf({}),
    billable: noBillableMessages(),
  };
}

/** The funnel of several sets of contacts that share none: a pool's senders, a campaign's. */
export function sumFunnels(funnels: readonly FunnelCounts[]): FunnelCounts {
  const sum = emptyFunnel();
  for (const funnel of funnels) {
    for (const field of FUNNEL_FIELDS) {
      sum[field] += funnel[field];
    }
    for (const kind of CONTACT_FAILURE_KINDS) {
      sum.failedByKind[kind] += funnel.failedByKind[kind];
    }
    for (const category of PRICED_CATEGORIES) {
      sum.billable[category] += funnel.billable[category];
    }
  }
  return sum;
}

const FUNNEL_FIELDS = [
  'total',
  'sent',
  'delivered',
  'read',
  'replied',
  'optedOut',
  'failed',
] as const satisfies ReadonlyArray<keyof FunnelCounts>;

/** How long a campaign sent and how fast. */
export interface SendingSpan {
  durationSeconds: number | null;
  perMinute: number | null;
  perHour: number | null;
}

/**
 * From the first send to the campaign's completion, or to its last send while it is not
 * completed (running, paused, cancelled, failed): nothing before the first send. The pace is
 * the sends over that span; a span of no time (one send) has none.
 */
export function sendingSpanOf(
  sent: number,
  firstSendAt: Date | null,
  lastSendAt: Date | null,
  completedAt: Date | null,
): SendingSpan {
  if (!firstSendAt || !lastSendAt) {
    return { durationSeconds: null, perMinute: null, perHour: null };
  }
  const end = completedAt && completedAt > lastSendAt ? completedAt : lastSendAt;
  const durationSeconds = Math.max(0, Math.round((end.getTime() - firstSendAt.getTime()) / 1000));
  if (durationSeconds === 0) {
    return { durationSeconds, perMinute: null, perHour: null };
  }
  return {
    durationSeconds,
    perMinute: Math.round((sent / (durationSeconds / 60)) * 100) / 100,
    perHour: Math.round((sent / (durationSeconds / 3600)) * 10) / 10,
  };
}

/** Days as the reports name them: `YYYY-MM-DD` in APP_TIMEZONE. */
const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A local date, or null when the text is not one (a format error or a day that does not exist). */
export function parseLocalDate(text: string, zone: string): DateTime | null {
  if (!LOCAL_DATE.test(text)) {
    return null;
  }
  const parsed = DateTime.fromISO(text, { zone });
  return parsed.isValid && parsed.toISODate() === text ? parsed.startOf('day') : null;
}

/** Days from `from` to `to`, both counted. */
export function daysSpanned(from: DateTime, to: DateTime): number {
  return Math.round(to.startOf('day').diff(from.startOf('day'), 'days').days) + 1;
}

/** A range of local days, both counted. */
export interface LocalDayRange {
  from: DateTime;
  to: DateTime;
}

/**
 * The company report's days: `to` defaults to today, `from` to the REPORT_DEFAULT_DAYS days
 * ending on `to`; a range past REPORT_MAX_DAYS, or `to` before `from`, is refused (400).
 */
export function reportDays(
  from: string | undefined,
  to: string | undefined,
  zone: string,
  now: Date,
): LocalDayRange {
  const last = to === undefined ? todayIn(zone, now) : dateOrRefuse('to', to, zone);
  const first =
    from === undefined
      ? last.minus({ days: REPORT_DEFAULT_DAYS - 1 })
      : dateOrRefuse('from', from, zone);
  assertOrdered(first, last);
  if (daysSpanned(first, last) > REPORT_MAX_DAYS) {
    throw new ValidationFailedError([
      ['to', `o período pode ter no máximo ${REPORT_MAX_DAYS} dias`],
    ]);
  }
  return { from: first, to: last };
}

/** The creation instants of the list's `from` and `to` (local days, both counted), either open. */
export function creationBounds(
  from: string | undefined,
  to: string | undefined,
  zone: string,
): { createdFrom?: Date; createdBefore?: Date } {
  const first = from === undefined ? undefined : dateOrRefuse('from', from, zone);
  const last = to === undefined ? undefined : dateOrRefuse('to', to, zone);
  if (first && last) {
    assertOrdered(first, last);
  }
  return {
    createdFrom: first?.toJSDate(),
    createdBefore: last?.plus({ days: 1 }).toJSDate(),
  };
}

function todayIn(zone: string, now: Date): DateTime {
  return DateTime.fromJSDate(now, { zone }).startOf('day');
}

function dateOrRefuse(field: string, text: string, zone: string): DateTime {
  const date = parseLocalDate(text, zone);
  if (!date) {
    throw new ValidationFailedError([[field, 'deve ser uma data existente no formato AAAA-MM-DD']]);
  }
  return date;
}

function assertOrdered(from: DateTime, to: DateTime): void {
  if (to < from) {
    throw new ValidationFailedError([['to', 'não pode ser antes de from']]);
  }
}

/** The instants a range of local days covers: from its first midnight to the midnight after its last day. */
export function instantsOf(from: DateTime, to: DateTime): { start: Date; end: Date } {
  return {
    start: from.startOf('day').toJSDate(),
    end: to.startOf('day').plus({ days: 1 }).toJSDate(),
  };
}

/** Every day of the range, in order, as `YYYY-MM-DD`. */
export function daysOf(from: DateTime, to: DateTime): string[] {
  return Array.from(
    { length: daysSpanned(from, to) },
    (_unused, i) => from.plus({ days: i }).toISODate() as string,
  );
}
