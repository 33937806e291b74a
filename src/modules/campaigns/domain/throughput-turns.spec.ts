import type { SendOutcome } from './send-outcome';
import {
  endsThroughputTurn,
  nextSlot,
  sendsAtThroughput,
  slotOffsetMs,
  takeSize,
  THROUGHPUT_TURN_SECONDS,
  throughputTurnSize,
} from './throughput-turns';

interface ClaimPacing {
  throughputPerSecond: number | null;
  maxInterval: number;
  longPauseEvery: number | null;
  warmFirst: boolean;
}

const cloudClaim: ClaimPacing = {
  throughputPerSecond: 80,
  maxInterval: 0,
  longPauseEvery: null,
  warmFirst: false,
};

describe('sendsAtThroughput', () => {
  it.each<[string, Partial<ClaimPacing>, boolean]>([
    ['a Cloud API number with no pause set', {}, true],
    ['an Evolution instance (no throughput)', { throughputPerSecond: null }, false],
    ['a pause a person set', { maxInterval: 2 }, false],
    ['a long pause a person set', { longPauseEvery: 50 }, false],
    ['warm contacts first (one at a time)', { warmFirst: true }, false],
  ])('%s: %s', (_case, changes, expected) => {
    expect(sendsAtThroughput({ ...cloudClaim, ...changes })).toBe(expected);
  });
});

describe('throughputTurnSize', () => {
  it.each<[string, number, number | null, number]>([
    ['no quota: the turn at the rate', 80, null, 80 * THROUGHPUT_TURN_SECONDS],
    ['a quota below the turn', 80, 37, 37],
    ['a quota above the turn', 80, 5_000, 80 * THROUGHPUT_TURN_SECONDS],
    ['a spent quota', 80, 0, 0],
    ['a negative figure (counted after the check) sends nothing', 80, -3, 0],
  ])('%s', (_case, perSecond, quota, expected) => {
    expect(throughputTurnSize(perSecond, quota)).toBe(expected);
  });
});

describe('takeSize and slotOffsetMs', () => {
  it('takes a second of messages, fewer at the end of the turn', () => {
    expect(takeSize(80, 800)).toBe(80);
    expect(takeSize(80, 12)).toBe(12);
    expect(takeSize(80, 0)).toBe(0);
  });

  it('spaces the messages evenly at the rate', () => {
    expect([0, 1, 80, 160].map((i) => slotOffsetMs(i, 80))).toEqual([0, 12.5, 1_000, 2_000]);
    expect(slotOffsetMs(3, 1_000)).toBe(3);
  });
});

describe('endsThroughputTurn', () => {
  it.each<[SendOutcome, boolean]>([
    [{ kind: 'sent', messageId: 'wamid.1', text: 'Oi' }, false],
    [{ kind: 'failed', reason: 'não entregue', paced: true, cause: 'undeliverable' }, false],
    [{ kind: 'throttled', reason: '130429' }, true],
    [{ kind: 'uncertain', reason: 'timeout', cause: 'gateway' }, true],
    [{ kind: 'account_blocked', reason: 'token expirado' }, true],
  ])('%j: %s', (outcome, expected) => {
    expect(endsThroughputTurn(outcome)).toBe(expected);
  });
});

describe('nextSlot', () => {
  const start = 1_000_000;

  it.each<[string, number, number, { at: number; startedAt: number }]>([
    ['ahead of its slot: waits for it', 4, start + 10, { at: start + 50, startedAt: start }],
    ['on time', 4, start + 50, { at: start + 50, startedAt: start }],
    [
      'late by less than an interval: keeps the schedule',
      4,
      start + 62,
      { at: start + 50, startedAt: start },
    ],
    [
      'late by more: goes now, the schedule moves',
      4,
      start + 700,
      { at: start + 700, startedAt: start + 650 },
    ],
  ])('%s', (_case, sent, now, expected) => {
    expect(nextSlot(start, sent, 80, now)).toEqual(expected);
  });

  it('never sends faster than the rate after a stall', () => {
    let startedAt = start;
    let now = start + 2_000; // a 2-second stall: 160 slots behind
    const sends: number[] = [];
    for (let sent = 0; sent < 160; sent += 1) {
      const slot = nextSlot(startedAt, sent, 80, now);
      startedAt = slot.startedAt;
      now = Math.max(now, slot.at);
      sends.push(now);
    }
    const inFirstSecond = sends.filter((at) => at < sends[0] + 1_000).length;
    expect(inFirstSecond).toBeLessThanOrEqual(81);
  });
});
