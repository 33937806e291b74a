import { Inject, Injectable } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';

/** What a storage answers for one hit (the package exports the type only from its dist/ tree). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;
import { FixedWindowMemoryStorage } from './fixed-window-memory.storage';

export const RATE_LIMIT_STORAGE = Symbol('RATE_LIMIT_STORAGE');

export interface RateWindow {
  /** Counter key, e.g. `company:12:minute`. */
  key: string;
  limit: number;
  windowSeconds: number;
}

export interface WindowOutcome {
  window: RateWindow;
  hits: number;
  remaining: number;
  /** Unix epoch seconds when this window starts over. */
  resetAt: number;
  /** Seconds until a refused caller may try again; 0 when allowed. */
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters over @nestjs/throttler's storage (in process, or Redis through
 * @nest-lab/throttler-storage-redis), so several instances can share one budget.
 */
@Injectable()
export class RateLimiter {
  constructor(@Inject(RATE_LIMIT_STORAGE) private readonly storage: ThrottlerStorage) {}

  /**
   * Counts one hit in each window. The in-process storage answers at once, so its counts
   * come back in one promise instead of one per window (this runs on every request).
   */
  hitAll(windows: readonly RateWindow[]): Promise<WindowOutcome[]> {
    const storage = this.storage;
    if (storage instanceof FixedWindowMemoryStorage) {
      return Promise.resolve(
        windows.map((window) => {
          const ttlMs = window.windowSeconds * 1000;
          return outcomeOf(window, storage.count(window.key, ttlMs, window.limit, ttlMs));
        }),
      );
    }
    return Promise.all(windows.map((window) => this.hit(window)));
  }

  private async hit(window: RateWindow): Promise<WindowOutcome> {
    const ttlMs = window.windowSeconds * 1000;
    const record = await this.storage.increment(window.key, ttlMs, window.limit, ttlMs, 'default');
    return outcomeOf(window, record);
  }
}

function outcomeOf(window: RateWindow, record: ThrottlerStorageRecord): WindowOutcome {
  const now = Math.floor(Date.now() / 1000);
  const blocked = record.isBlocked || record.totalHits > window.limit;
  return {
    window,
    hits: record.totalHits,
    remaining: Math.max(0, window.limit - record.totalHits),
    resetAt: now + Math.max(0, record.timeToExpire),
    retryAfterSeconds: blocked ? Math.max(1, record.timeToBlockExpire || record.timeToExpire) : 0,
  };
}
