import { Injectable, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * JSON body limits per route family. Express's default (100 kb) is far below a campaign of
 * 10,000 contacts (about 540 KB) or a push import of 100,000 rows (several MB).
 */
export const JSON_BODY_LIMITS: ReadonlyArray<readonly [prefix: string, limit: string]> = [
  ['/api/campaigns', '16mb'],
  ['/api/companies/', '64mb'],
  ['/api/automations', '2mb'],
];
const DEFAULT_LIMIT = '1mb';
const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function parserFor(limit: string): RequestHandler {
  return express.json({ limit, strict: false });
}

const parsers = new Map<string, RequestHandler>(
  [...JSON_BODY_LIMITS.map(([, limit]) => limit), DEFAULT_LIMIT].map((limit) => [
    limit,
    parserFor(limit),
  ]),
);

/** Runs after rate limiting, so a refused caller's body is never read. */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(request: Request, response: Response, next: NextFunction): void {
    if (!METHODS_WITH_BODY.has(request.method)) {
      next();
      return;
    }
    const limit =
      JSON_BODY_LIMITS.find(([prefix]) => request.path.startsWith(prefix))?.[1] ?? DEFAULT_LIMIT;
    const parser = parsers.get(limit) as RequestHandler;
    // body-parser's errors are http-errors (Errors with status and type) that mapError
    // answers with 400/413/415.
    void parser(request, response, (error?: unknown) =>
      error ? next(error instanceof Error ? error : new Error('body parser failed')) : next(),
    );
  }
}
