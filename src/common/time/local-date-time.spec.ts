import { DateTime } from 'luxon';
import { formatLocalDateTime, parseLocalDateTime } from './local-date-time';

describe('local date-times', () => {
  it('formats an instant as São Paulo wall-clock time without zone', () => {
    expect(formatLocalDateTime(new Date('2026-11-22T15:04:05Z'), 'America/Sao_Paulo')).toBe(
      '2026-11-22T12:04:05',
    );
  });

  it('parses both accepted shapes in the given zone', () => {
    expect(parseLocalDateTime('2026-11-22T12:04', 'America/Sao_Paulo')?.toISOString()).toBe(
      '2026-11-22T15:04:00.000Z',
    );
    expect(parseLocalDateTime('2026-11-22T12:04:05', 'America/Sao_Paulo')?.toISOString()).toBe(
      '2026-11-22T15:04:05.000Z',
    );
  });

  it.each([
    '2026-11-22',
    '2026-11-22T12:04:05Z',
    '2026-13-01T00:00',
    '2026-02-30T10:00',
    'amanhã',
    '2026-11-22 12:04',
  ])('refuses %s', (text) => {
    expect(parseLocalDateTime(text, 'America/Sao_Paulo')).toBeNull();
  });

  it('refuses a wall-clock time skipped by a daylight-saving change', () => {
    expect(parseLocalDateTime('2026-03-08T02:30', 'America/New_York')).toBeNull();
  });

  it('returns null for no date', () => {
    expect(formatLocalDateTime(null, 'America/Sao_Paulo')).toBeNull();
  });

  it.each([
    'America/Sao_Paulo',
    'America/New_York',
    'Europe/Lisbon',
    'Asia/Kolkata',
    'Asia/Kathmandu',
    'Australia/Lord_Howe',
    'UTC',
  ])('formats every minute around %s’s offset changes as luxon does', (zone) => {
    // 2018 (Brazil still had daylight saving) and 2026, each minute of a day every 11 days.
    for (const year of [2018, 2026]) {
      for (let day = 0; day < 366; day += 11) {
        const dayStart = Date.UTC(year, 0, 1) + day * 86_400_000;
        for (let minute = 0; minute < 1440; minute += 7) {
          const date = new Date(dayStart + minute * 60_000 + 13_000);
          expect(formatLocalDateTime(date, zone)).toBe(
            DateTime.fromJSDate(date, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss"),
          );
        }
      }
    }
  });

  it('formats the instants of the Brazilian daylight-saving changes of 2018 as luxon does', () => {
    // 2018-02-18 00:00 -02 became 23:00 -03; 2018-11-04 00:00 -03 became 01:00 -02.
    for (const change of [Date.UTC(2018, 1, 18, 2), Date.UTC(2018, 10, 4, 3)]) {
      for (let ms = change - 120_000; ms <= change + 120_000; ms += 1_000) {
        const date = new Date(ms);
        expect(formatLocalDateTime(date, 'America/Sao_Paulo')).toBe(
          DateTime.fromJSDate(date, { zone: 'America/Sao_Paulo' }).toFormat(
            "yyyy-MM-dd'T'HH:mm:ss",
          ),
        );
      }
    }
  });
});
