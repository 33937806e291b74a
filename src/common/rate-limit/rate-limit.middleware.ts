import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AppConfig } from '../../config/app-config.service';
import { CompanySession, resolveRequestSession, SessionLookup } from '../session/company-session';
import { RateLimitedError } from '../errors/domain-error';
import { clientIpOf } from '../http/client-ip';
import { routePathOf } from '../http/route-path';
import { RateLimiter, RateWindow, WindowOutcome } from './rate-limiter';

/**
 * /actuator and everything under it (not /actuatorX, an ordinary unknown route), and the
 * gateway's events, which come in bursts of thousands a second from one address and carry
 * their own secret; tested against routePathOf, as routing reads paths.
 */
const UNLIMITED_PATHS = /^\/(actuator(\/|$)|api\/gateway-events\/)/;

/**
 * Runs before routing, so every response — 404s and 401s included — carries the
 * X-RateLimit-* headers. Company tokens count against the company's per-minute and per-hour
 * budgets; anything else against the client IP.
 */
@Injectable()
export class RateLimitMiddleware implements NestMiddleware {
  /** A cached session keeps its windows (and their keys) for as long as it lives. */
  private readonly companyWindows = new WeakMap<CompanySession, RateWindow[]>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly sessions: SessionLookup,
    private readonly config: AppConfig,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    if (UNLIMITED_PATHS.test(routePathOf(request))) {
      next();
      return;
    }
    resolveRequestSession(request, this.sessions)
      .catch(() => null)
      .then((session) => this.limiter.hitAll(this.windowsFor(request, session)))
      .then((outcomes) => answerRateLimit(response, outcomes))
      .then(() => next(), next);
  }

  private windowsFor(request: Request, session: CompanySession | null): RateWindow[] {
    if (session?.isActive) {
      let windows = this.companyWindows.get(session);
      if (!windows) {
        windows = companyWindowsOf(session);
        this.companyWindows.set(session, windows);
      }
      return windows;
    }
    return [anonymousWindowOf(request, this.config)];
  }
}

/** The per-minute budget of a caller without a company token: its address's. */
export function anonymousWindowOf(request: Request, config: AppConfig): RateWindow {
  return anonymousWindowOfAddress(clientIpOf(request), config);
}

/** The anonymous minute window of a client address (one read outside Express too). */
export function anonymousWindowOfAddress(address: string, config: AppConfig): RateWindow {
  return {
    key: `ip:${address}:minute`,
    limit: config.anonymousRateLimitPerMinute,
    windowSeconds: 60,
  };
}

/** Sets the X-RateLimit-* headers from the minute window; throws when a window is spent. */
export function answerRateLimit(
  response: { setHeader(name: string, value: string): unknown },
  outcomes: WindowOutcome[],
): void {
  const minute = outcomes[0];
  response.setHeader('X-RateLimit-Limit', String(minute.window.limit));
  response.setHeader('X-RateLimit-Remaining', String(minute.remaining));
  response.setHeader('X-RateLimit-Reset', String(minute.resetAt));
  const refused = outcomes.find((outcome) => outcome.retryAfterSeconds > 0);
  if (refused) {
    throw new RateLimitedError(
      'RATE_LIMIT.EXCEEDED',
      refused.window.windowSeconds >= 3600
        ? 'Limite de requisições por hora excedido; tente novamente mais tarde'
        : 'Limite de requisições por minuto excedido; tente novamente mais tarde',
      refused.retryAfterSeconds,
    );
  }
}

function companyWindowsOf(session: CompanySession): RateWindow[] {
  return [
    {
      key: `company:${session.companyId}:minute`,
      limit: session.rateLimitPerMinute,
      windowSeconds: 60,
    },
    {
      key: `company:${session.companyId}:hour`,
      limit: session.rateLimitPerHour,
      windowSeconds: 3600,
    },
  ];
}
