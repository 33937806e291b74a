import type { ThrottlerStorage } from '@nestjs/throttler';
import { FixedWindowMemoryStorage } from './fixed-window-memory.storage';
import { RateLimiter, RateWindow } from './rate-limiter';

const windows: RateWindow[] = [
  { key: 'company:1:minute', limit: 2, windowSeconds: 60 },
  { key: 'company:1:hour', limit: 3, windowSeconds: 3600 },
];

/** The same counters behind the generic (promise per hit) path, as the Redis storage takes it. */
function throughGenericPath(memory: FixedWindowMemoryStorage): ThrottlerStorage {
  return {
    increment: (key, ttl, limit, blockDuration) => memory.increment(key, ttl, limit, blockDuration),
  };
}

describe('RateLimiter.hitAll', () => {
  it.each([
    ['in-process storage', (m: FixedWindowMemoryStorage): ThrottlerStorage => m],
    ['any other storage', throughGenericPath],
  ])('counts every window and refuses once one is spent (%s)', async (_name, storageOf) => {
    const limiter = new RateLimiter(storageOf(new FixedWindowMemoryStorage()));
    const first = await limiter.hitAll(windows);
    await limiter.hitAll(windows);
    const third = await limiter.hitAll(windows);

    expect(first.map((o) => [o.hits, o.remaining, o.retryAfterSeconds])).toEqual([
      [1, 1, 0],
      [1, 2, 0],
    ]);
    expect(third.map((o) => [o.hits, o.remaining, o.retryAfterSeconds > 0])).toEqual([
      [3, 0, true],
      [3, 0, false],
    ]);
    expect(third[0].retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});
