import type { ThrottlerStorage } from '@nestjs/throttler';

interface Window {
  hits: number;
  resetAt: number;
  blockedUntil: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * In-process counters with one number per key and window: O(1) per hit. The storage that
 * ships with @nestjs/throttler keeps a timestamp per hit and filters them all on every hit,
 * which costs milliseconds per request once an hour-long window holds tens of thousands of
 * hits. Same contract (ThrottlerStorage), so the Redis storage stays interchangeable.
 */
export class FixedWindowMemoryStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private nextSweep = Date.now() + SWEEP_EVERY_MS;

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
  ): Promise<ThrottlerStorageRecord> {
    return Promise.resolve(this.count(key, ttl, limit, blockDuration));
  }

  /** increment without the promise, for callers that know the storage is in process. */
  count(key: string, ttl: number, limit: number, blockDuration: number): ThrottlerStorageRecord {
    const now = Date.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { hits: 0, resetAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, window);
    }
    window.hits += 1;
    if (window.hits > limit && window.blockedUntil <= now) {
      window.blockedUntil = now + blockDuration;
    }
    const isBlocked = window.blockedUntil > now;
    return {
      totalHits: window.hits,
      timeToExpire: Math.ceil((window.resetAt - now) / 1000),
      isBlocked,
      timeToBlockExpire: isBlocked ? Math.ceil((window.blockedUntil - now) / 1000) : 0,
    };
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) {
      return;
    }
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now && window.blockedUntil <= now) {
        this.windows.delete(key);
      }
    }
  }
}

/** What a storage answers for one hit (the package exports the type only from its dist/ tree). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;
