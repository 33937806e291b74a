import {
  InstanceRefusals,
  lockCalledFor,
  lockInForce,
  ReachOutLock,
  startLock,
} from './reach-out-lock';

const NOW = new Date('2026-11-26T12:00:00Z');
const HOUR = 3_600;
const QUIET: InstanceRefusals = { reachOutCode: false, warm: false, coldRefusedInSample: 0 };

function lockAt(
  at: Date,
  scope: ReachOutLock['scope'] = 'COLD',
  seconds = 24 * HOUR,
): ReachOutLock {
  return {
    scope,
    cause: 'REFUSALS',
    lockedAt: at,
    lockedUntil: new Date(at.getTime() + seconds * 1000),
    seconds,
  };
}

describe('what refusals do to the reach-out lock', () => {
  it('locks cold contacts at once on 463, and everything when a warm contact was refused with it', () => {
    expect(lockCalledFor({ ...QUIET, reachOutCode: true }, null, 3)).toEqual({
      scope: 'COLD',
      cause: 'NACK_463',
    });
    expect(lockCalledFor({ ...QUIET, reachOutCode: true, warm: true }, null, 3)).toEqual({
      scope: 'ALL',
      cause: 'NACK_463',
    });
  });

  it('locks when the refusals in the sample reach the threshold, not before', () => {
    expect(lockCalledFor({ ...QUIET, coldRefusedInSample: 2 }, null, 3)).toBeNull();
    expect(lockCalledFor({ ...QUIET, coldRefusedInSample: 3 }, null, 3)).toEqual({
      scope: 'COLD',
      cause: 'REFUSALS',
    });
  });

  it('widens a lock in force when a warm contact is refused, and otherwise leaves it', () => {
    const current = lockAt(NOW);
    expect(lockCalledFor({ ...QUIET, warm: true }, current, 3)).toEqual({
      scope: 'ALL',
      cause: 'WARM_REFUSED',
    });
    expect(
      lockCalledFor({ ...QUIET, coldRefusedInSample: 9, reachOutCode: true }, current, 3),
    ).toBeNull();
    expect(lockCalledFor({ ...QUIET, warm: true }, lockAt(NOW, 'ALL'), 3)).toBeNull();
    // A warm refusal alone, with no lock, is no sign of one (the person may have blocked the number).
    expect(lockCalledFor({ ...QUIET, warm: true }, null, 3)).toBeNull();
  });
});

describe('how long a reach-out lock lasts', () => {
  const wanted = { scope: 'COLD' as const, cause: 'NACK_463' as const };

  it('lasts the company’s cool-down the first time', () => {
    const lock = startLock(wanted, null, null, NOW, 24 * HOUR);
    expect(lock).toEqual({
      ...wanted,
      lockedAt: NOW,
      lockedUntil: new Date('2026-11-27T12:00:00Z'),
      seconds: 24 * HOUR,
    });
  });

  it('doubles when the last lock began within a week, and not after', () => {
    const sixDaysAgo = new Date(NOW.getTime() - 6 * 24 * HOUR * 1000);
    const eightDaysAgo = new Date(NOW.getTime() - 8 * 24 * HOUR * 1000);
    expect(
      startLock(wanted, { lockedAt: sixDaysAgo, seconds: 24 * HOUR }, null, NOW, 24 * HOUR).seconds,
    ).toBe(48 * HOUR);
    expect(
      startLock(wanted, { lockedAt: sixDaysAgo, seconds: 48 * HOUR }, null, NOW, 24 * HOUR).seconds,
    ).toBe(96 * HOUR);
    expect(
      startLock(wanted, { lockedAt: eightDaysAgo, seconds: 48 * HOUR }, null, NOW, 24 * HOUR)
        .seconds,
    ).toBe(24 * HOUR);
  });

  it('never doubles past a month', () => {
    const yesterday = new Date(NOW.getTime() - 24 * HOUR * 1000);
    expect(
      startLock(wanted, { lockedAt: yesterday, seconds: 20 * 24 * HOUR }, null, NOW, HOUR).seconds,
    ).toBe(30 * 24 * HOUR);
  });

  it('widens a lock in force without moving its start or end', () => {
    const current = lockAt(new Date(NOW.getTime() - HOUR * 1000));
    const wider = startLock(
      { scope: 'ALL', cause: 'WARM_REFUSED' },
      current,
      current,
      NOW,
      24 * HOUR,
    );
    expect(wider).toEqual({ ...current, scope: 'ALL', cause: 'WARM_REFUSED' });
  });

  it('is over at its end, by the clock it is asked with', () => {
    const lock = lockAt(NOW, 'COLD', HOUR);
    expect(lockInForce(lock, new Date(NOW.getTime() + HOUR * 1000 - 1))).toBe(lock);
    expect(lockInForce(lock, new Date(NOW.getTime() + HOUR * 1000))).toBeNull();
    expect(lockInForce(null, NOW)).toBeNull();
  });
});
