import { Injectable } from '@nestjs/common';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { RateLimitedError } from '../../../common/errors/domain-error';
import { Metrics } from '../../../common/metrics/metrics';
import {
  anonymousWindowOfAddress,
  answerRateLimit,
} from '../../../common/rate-limit/rate-limit.middleware';
import { RateLimiter } from '../../../common/rate-limit/rate-limiter';
import { AppConfig } from '../../../config/app-config.service';

/**
 * What a refused events request costs its address: each refusal counts against the address's
 * anonymous budget (429 past it, with the X-RateLimit-* headers), so that a stranger who
 * guessed a configuration's id cannot make the service read and check request after request;
 * accepted events never count. Once an address has spent its budget, the routes refuse it from
 * memory, before any lookup or body read.
 */
@Injectable()
export class RefusalBudget {
  /** Until when each address's budget is spent (epoch ms), as the limiter last answered. */
  private readonly spentUntil = new ExpiringMap<string, number>(60_000, 10_000);

  constructor(
    private readonly limiter: RateLimiter,
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
  ) {}

  isSpent(address: string): boolean {
    return (this.spentUntil.get(address)?.value ?? 0) > Date.now();
  }

  /**
   * Counts a refusal of `address` and sets the budget's headers on `response`; throws the 429
   * when the budget is spent, else returns so the caller answers its own refusal.
   */
  async count(
    address: string,
    response: { setHeader(name: string, value: string): unknown },
  ): Promise<void> {
    const outcomes = await this.limiter.hitAll([anonymousWindowOfAddress(address, this.config)]);
    try {
      answerRateLimit(response, outcomes);
    } catch (limited) {
      if (limited instanceof RateLimitedError) {
        this.spentUntil.set(address, Date.now() + limited.retryAfterSeconds * 1000);
      }
      this.metrics.countGatewayEventRefused('rate_limited');
      throw limited;
    }
  }
}
