import {
  drawPauses,
  MESSAGES_PER_LEASE,
  messagesPerTurn,
  nextIsDueAtOnce,
  pauseMsOf,
  PauseSettings,
  SendPauses,
} from './send-pauses';

const settings: PauseSettings = {
  minInterval: 1,
  maxInterval: 3,
  longPauseEvery: null,
  longPauseMin: null,
  longPauseMax: null,
};

describe('drawPauses', () => {
  it.each<[string, PauseSettings, number, SendPauses]>([
    ['the lowest draw', settings, 0, { pauseSeconds: 1, draw: 0, longPauseSeconds: 0 }],
    [
      'a draw to the millisecond',
      settings,
      0.12345,
      { pauseSeconds: 1.247, draw: 0.12345, longPauseSeconds: 0 },
    ],
    [
      'a long pause drawn in its own range',
      { ...settings, longPauseEvery: 10, longPauseMin: 60, longPauseMax: 120 },
      0.5,
      { pauseSeconds: 2, draw: 0.5, longPauseSeconds: 90 },
    ],
    [
      'zero intervals',
      { ...settings, minInterval: 0, maxInterval: 0 },
      0.9,
      { pauseSeconds: 0, draw: 0.9, longPauseSeconds: 0 },
    ],
  ])('%s', (_name, given, draw, expected) => {
    expect(drawPauses(given, () => draw)).toEqual(expected);
  });

  it('stays within the interval', () => {
    for (let i = 0; i < 100; i += 1) {
      const { pauseSeconds } = drawPauses(settings);
      expect(pauseSeconds).toBeGreaterThanOrEqual(1);
      expect(pauseSeconds).toBeLessThanOrEqual(3);
    }
  });
});

describe('the turn on an instance', () => {
  it.each<[number | null, number]>([
    [null, MESSAGES_PER_LEASE],
    [1_000, MESSAGES_PER_LEASE],
    [7, 7],
  ])('a quota of %p allows %i messages', (quota, messages) => {
    expect(messagesPerTurn(quota)).toBe(messages);
  });

  it.each<[number, boolean, boolean]>([
    [0, false, true],
    [0, true, false],
    [0.001, false, false],
  ])('a pause of %ps (long pause: %p): next due at once %p', (pauseSeconds, longPause, atOnce) => {
    expect(nextIsDueAtOnce({ pauseSeconds, draw: 0, longPauseSeconds: 0 }, longPause)).toBe(atOnce);
  });

  it('rounds the pause to the millisecond', () => {
    expect(pauseMsOf({ pauseSeconds: 1.2346, draw: 0, longPauseSeconds: 0 })).toBe(1235);
  });
});
