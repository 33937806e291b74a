import { DateTime, IANAZone } from 'luxon';

/**
 * When messages may go out: on the ISO weekdays `days` (1 = Monday … 7 = Sunday), from `start`
 * to `end` (HH:mm, end excluded) in `timezone`. A campaign outside its window waits.
 */
export interface SendingWindow {
  days: number[];
  start: string;
  end: string;
  timezone: string;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** A week is enough to find the next opening of any window with at least one day. */
const DAYS_LOOKED_AHEAD = 8;

/** What is wrong with a window, as [field, Portuguese message] pairs; empty when valid. */
export function sendingWindowProblems(window: SendingWindow): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  const days = window.days as unknown;
  if (
    !Array.isArray(days) ||
    days.length === 0 ||
    days.some((day) => !Number.isInteger(day) || day < 1 || day > 7) ||
    new Set(days).size !== days.length
  ) {
    problems.push([
      'days',
      'deve ser uma lista de dias da semana ISO, de 1 (segunda) a 7 (domingo), sem repetição',
    ]);
  }
  const start = typeof window.start === 'string' && HH_MM.test(window.start);
  const end = typeof window.end === 'string' && HH_MM.test(window.end);
  if (!start) {
    problems.push(['start', 'deve ser um horário HH:mm']);
  }
  if (!end) {
    problems.push(['end', 'deve ser um horário HH:mm']);
  }
  if (start && end && window.start >= window.end) {
    problems.push(['end', 'deve ser depois do início (a janela não atravessa a meia-noite)']);
  }
  if (typeof window.timezone !== 'string' || !IANAZone.isValidZone(window.timezone)) {
    problems.push(['timezone', 'deve ser um fuso horário IANA, como America/Sao_Paulo']);
  }
  return problems;
}

/**
 * A window from a request, checked: its problems named under `field` (sendingWindow.days…)
 * appended to `errors`; the normalized window, or null when absent or invalid.
 */
export function checkSendingWindow(
  window: SendingWindow | null | undefined,
  errors: Array<[string, string]>,
  field = 'sendingWindow',
): SendingWindow | null {
  if (!window) {
    return null;
  }
  const problems = sendingWindowProblems(window);
  for (const [name, message] of problems) {
    errors.push([`${field}.${name}`, message]);
  }
  return problems.length === 0 ? normalizedSendingWindow(window) : null;
}

/** The window as stored and shown: days sorted, nothing else. */
export function normalizedSendingWindow(window: SendingWindow): SendingWindow {
  return {
    days: [...window.days].sort((a, b) => a - b),
    start: window.start,
    end: window.end,
    timezone: window.timezone,
  };
}

/** Null when `at` is inside the window; otherwise the instant it next opens. */
export function nextWindowOpening(window: SendingWindow, at: Date): Date | null {
  const local = DateTime.fromJSDate(at, { zone: window.timezone });
  for (let offset = 0; offset < DAYS_LOOKED_AHEAD; offset += 1) {
    const day = local.plus({ days: offset });
    if (!window.days.includes(day.weekday)) {
      continue;
    }
    const opens = atTime(day, window.start);
    const closes = atTime(day, window.end);
    if (local < opens) {
      return opens.toJSDate();
    }
    if (local < closes) {
      return null;
    }
  }
  // Unreachable for a valid window; a week from now is a safe answer for a broken one.
  return local.plus({ days: 7 }).toJSDate();
}

function atTime(day: DateTime, hhmm: string): DateTime {
  const [hour, minute] = hhmm.split(':').map(Number);
  return day.set({ hour, minute, second: 0, millisecond: 0 });
}
