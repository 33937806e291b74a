import { Injectable, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppConfig } from '../../config/app-config.service';
import { resolveRequestSession, SessionLookup } from '../session/company-session';
import { secretsEqual } from '../crypto/hashing';
import { UnauthorizedError } from '../errors/domain-error';
import { routePathOf } from './route-path';
import { assertSafeBody } from './text-hygiene';

/**
 * JSON body limits per route family (tested against routePathOf). Express's default (100 kb)
 * is far below a campaign of 10,000 contacts (about 540 KB) or a push import of 100,000 rows
 * (several MB). The limits apply to the inflated body: a gzip bomb stops at the limit.
 */
export const JSON_BODY_LIMITS: ReadonlyArray<readonly [prefix: string, limit: string]> = [
  ['/api/campaigns', '16mb'],
  ['/api/companies/', '64mb'],
  ['/api/automations', '2mb'],
];
/** Every other route's, the gateway's events included. */
export const DEFAULT_JSON_BODY_BYTES = 1024 * 1024;
const DEFAULT_LIMIT = DEFAULT_JSON_BODY_BYTES;
/** All a caller without valid credentials may send to a route that needs them. */
export const UNAUTHENTICATED_BODY_BYTES = 4 * 1024;
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Routes that take a body from anyone (their own checks follow), and the admin's routes, as
 * routePathOf writes paths. Every other path needs credentials for a body past a few KB, an
 * unknown one too: every route that takes a body is under /api or /media, so a path outside
 * them (`//api/campaigns` included) is a 404 that has no reason to read a large body.
 */
const OPEN_BODY_ROUTES = [/^\/api\/auth\/login$/, /^\/api\/gateway-events\//];
const ADMIN_ROUTES = [/^\/api\/admin\//, /^\/api\/auth\/register$/];
const ADMIN_HEADER = 'access_token';

type BodyLimit = { bytes: string | number } | 'refuse';

function parserFor(limit: string | number): RequestHandler {
  return express.json({ limit, strict: false });
}

const parsers = new Map<string | number, RequestHandler>(
  [...JSON_BODY_LIMITS.map(([, limit]) => limit), DEFAULT_LIMIT, UNAUTHENTICATED_BODY_BYTES].map(
    (limit) => [limit, parserFor(limit)],
  ),
);

/**
 * Runs after rate limiting, so a refused caller's body is never read. A caller without valid
 * credentials on a route that needs them gets 401 before its body is read, unless the body is
 * a few KB (then the guard answers, as for any other request); every string of the body and
 * of the query passes the text check (no NUL, no lone UTF-16 surrogate), and the body nests
 * at most MAX_BODY_DEPTH deep. JSON.parse itself does not recurse (V8's parser keeps its own
 * stack), so the check after it is the first walk of the body, and it does not recurse either.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  constructor(
    private readonly sessions: SessionLookup,
    private readonly config: AppConfig,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    try {
      assertSafeBody(request.query);
    } catch (error) {
      next(error);
      return;
    }
    if (!METHODS_WITH_BODY.has(request.method)) {
      next();
      return;
    }
    this.limitFor(request).then(
      (limit) => {
        if (limit === 'refuse') {
          this.refuseUnread(request, response, next);
          return;
        }
        // body-parser's errors are http-errors (Errors with status and type) that mapError
        // answers with 400/413/415.
        void (parsers.get(limit.bytes) as RequestHandler)(request, response, (error?: unknown) => {
          if (error) {
            next(error instanceof Error ? error : new Error('body parser failed'));
            return;
          }
          try {
            assertSafeBody(request.body);
            next();
          } catch (unsafe) {
            next(unsafe);
          }
        });
      },
      (error: unknown) => next(error),
    );
  }

  /** The body limit for this caller, or 'refuse' (401 unread) for one without credentials. */
  private async limitFor(request: Request): Promise<BodyLimit> {
    const path = routePathOf(request);
    const limit =
      JSON_BODY_LIMITS.find(([prefix]) => path.startsWith(prefix))?.[1] ?? DEFAULT_LIMIT;
    if (await this.hasCredentials(request, path)) {
      return { bytes: limit };
    }
    const declared = Number(request.headers['content-length']);
    return Number.isFinite(declared) && declared <= UNAUTHENTICATED_BODY_BYTES
      ? { bytes: UNAUTHENTICATED_BODY_BYTES }
      : 'refuse';
  }

  private async hasCredentials(request: Request, path: string): Promise<boolean> {
    if (OPEN_BODY_ROUTES.some((route) => route.test(path))) {
      return true;
    }
    if (ADMIN_ROUTES.some((route) => route.test(path))) {
      const header = request.headers[ADMIN_HEADER];
      const match = typeof header === 'string' ? /^Bearer\s+(.+)$/.exec(header.trim()) : null;
      return !!match && secretsEqual(match[1], this.config.adminPassword);
    }
    const session = await resolveRequestSession(request, this.sessions).catch(() => null);
    return session !== null;
  }

  /** 401 at once, and the connection closed after it, so that the body is never read. */
  private refuseUnread(request: Request, response: Response, next: NextFunction): void {
    response.setHeader('Connection', 'close');
    response.once('finish', () => request.socket.destroy());
    next(new UnauthorizedError('AUTH.INVALID_TOKEN', 'Token de acesso inválido ou ausente'));
  }
}
