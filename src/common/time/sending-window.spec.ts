import {
  nextWindowOpening,
  normalizedSendingWindow,
  sendingWindowProblems,
} from './sending-window';

const BUSINESS_HOURS = {
  days: [1, 2, 3, 4, 5],
  start: '08:00',
  end: '20:00',
  timezone: 'America/Sao_Paulo',
};

/** A São Paulo wall-clock time (UTC-3, no daylight saving since 2019) as an instant. */
function saoPaulo(localIso: string): Date {
  return new Date(`${localIso}-03:00`);
}

describe('sending windows', () => {
  it('is open inside its hours on its days', () => {
    // 2026-11-24 is a Tuesday.
    expect(nextWindowOpening(BUSINESS_HOURS, saoPaulo('2026-11-24T08:00:00'))).toBeNull();
    expect(nextWindowOpening(BUSINESS_HOURS, saoPaulo('2026-11-24T19:59:59'))).toBeNull();
  });

  it('opens later the same day before its start', () => {
    expect(nextWindowOpening(BUSINESS_HOURS, saoPaulo('2026-11-24T03:00:00'))).toEqual(
      saoPaulo('2026-11-24T08:00:00'),
    );
  });

  it('opens the next allowed day after its end, skipping the weekend', () => {
    expect(nextWindowOpening(BUSINESS_HOURS, saoPaulo('2026-11-24T20:00:00'))).toEqual(
      saoPaulo('2026-11-25T08:00:00'),
    );
    // Friday night → Monday morning.
    expect(nextWindowOpening(BUSINESS_HOURS, saoPaulo('2026-11-27T21:00:00'))).toEqual(
      saoPaulo('2026-11-30T08:00:00'),
    );
  });

  it('reads the hours in its own zone, not the server’s', () => {
    const lisbon = { ...BUSINESS_HOURS, timezone: 'Europe/Lisbon' };
    // 06:00 in São Paulo is 09:00 in Lisbon (UTC+0 in November): open there.
    expect(nextWindowOpening(lisbon, saoPaulo('2026-11-24T06:00:00'))).toBeNull();
  });

  it.each([
    [{ ...BUSINESS_HOURS, days: [] }, 'days'],
    [{ ...BUSINESS_HOURS, days: [0, 1] }, 'days'],
    [{ ...BUSINESS_HOURS, days: [1, 1] }, 'days'],
    [{ ...BUSINESS_HOURS, days: [1.5] }, 'days'],
    [{ ...BUSINESS_HOURS, start: '8:00' }, 'start'],
    [{ ...BUSINESS_HOURS, end: '24:00' }, 'end'],
    [{ ...BUSINESS_HOURS, start: '20:00', end: '08:00' }, 'end'],
    [{ ...BUSINESS_HOURS, start: '10:00', end: '10:00' }, 'end'],
    [{ ...BUSINESS_HOURS, timezone: 'Mars/Olympus' }, 'timezone'],
  ])('refuses %j naming %s', (window, field) => {
    expect(sendingWindowProblems(window).map(([name]) => name)).toContain(field);
  });

  it('accepts a valid window and stores its days in order', () => {
    expect(sendingWindowProblems(BUSINESS_HOURS)).toEqual([]);
    expect(normalizedSendingWindow({ ...BUSINESS_HOURS, days: [5, 1, 3] }).days).toEqual([1, 3, 5]);
  });
});
