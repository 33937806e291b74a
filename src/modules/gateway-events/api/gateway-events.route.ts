import { Injectable, NestMiddleware } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { DEFAULT_JSON_BODY_BYTES } from '../../../common/http/json-body.middleware';
import { assertSafeBody } from '../../../common/http/text-hygiene';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import {
  EventsSource,
  GatewayEventsSources,
} from '../../gateway/application/gateway-events-sources';
import { GatewayEventReception } from './gateway-event-reception';

/** The route as the gateway posts it; anything else (a query, another case…) goes the long way. */
const PLAIN_EVENTS_PATH = /^\/api\/gateway-events\/([1-9]\d{0,9})\/?$/i;
const MAX_ID = 2_147_483_647;
/** What body-parser's JSON parser reads as UTF-8 JSON without help (utf8 without the dash: 415). */
const PLAIN_JSON = /^application\/json\s*(;\s*charset\s*=\s*("utf-8"|utf-8)\s*)?$/i;
const DECIMAL = /^\d{1,9}$/;
/** The controller's route, as the request metrics label it. */
const ROUTE = { path: '/api/gateway-events/:configurationId' };

const ACKNOWLEDGEMENT = JSON.stringify({ received: true });
/** Express's answer to the controller's, header for header (its weak ETag included). */
const ACKNOWLEDGEMENT_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Content-Length': String(Buffer.byteLength(ACKNOWLEDGEMENT)),
  ETag: `W/"${Buffer.byteLength(ACKNOWLEDGEMENT).toString(16)}-${createHash('sha1')
    .update(ACKNOWLEDGEMENT)
    .digest('base64')
    .slice(0, 27)}"`,
};
/** Strips a byte-order mark, as body-parser's decoding does; invalid bytes become U+FFFD, as there. */
const UTF8 = new TextDecoder();

/** Shaped as body-parser's errors, so that the one error mapping answers them alike. */
class BodyReadError extends Error {
  readonly expose = true;

  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The gateway's own events, served ahead of the rest of the HTTP pipeline and of Nest's router:
 * at thousands a second, the per-request work of the generic path (route matching through every
 * route, body-parser, guards, pipes, interceptors, the exception filter, Express's JSON answer)
 * cost several times what storing the event does. It takes only what the generic path would
 * accept as it is (a POST of a plain JSON body of a known length, under the route's 1 MB,
 * carrying the secret of a configuration that tracks delivery) and gives it the same treatment:
 * the body read and checked as JsonBodyMiddleware does (text, depth), then the controller's
 * own work (GatewayEventReception), every error answered by the pipeline's error mapping.
 * Anything else, refusals by the gate included, goes on to the generic path untouched: its body
 * is still unread.
 */
@Injectable()
export class GatewayEventsRoute implements NestMiddleware {
  constructor(
    private readonly sources: GatewayEventsSources,
    private readonly reception: GatewayEventReception,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    const id = plainEventIdOf(request);
    const secret = request.headers[EVENTS_SECRET_HEADER];
    if (id === null || typeof secret !== 'string' || secret === '') {
      next();
      return;
    }
    // Only configurations that track delivery: an id nobody tracks costs no query here, and
    // the gate answers it (and counts it against the address) as before.
    this.sources
      .eventsSource(id, secret, true)
      .catch(() => null)
      .then((source) => (source ? this.serve(source, request, response, next) : next()), next);
  }

  private serve(
    source: EventsSource,
    request: Request,
    response: Response,
    next: NextFunction,
  ): void {
    (request as Request & { route: typeof ROUTE }).route = ROUTE;
    readJson(request)
      .then((body) => {
        assertSafeBody(body);
        return this.reception.receive(source, body);
      })
      .then(() => response.writeHead(200, ACKNOWLEDGEMENT_HEADERS).end(ACKNOWLEDGEMENT), next);
  }
}

/** The configuration's id when the request is a plain JSON event post; null otherwise. */
export function plainEventIdOf(
  request: Pick<Request, 'method' | 'url' | 'headers'>,
): number | null {
  const { headers } = request;
  const length = headers['content-length'];
  const encoding = headers['content-encoding'];
  if (
    request.method !== 'POST' ||
    headers['transfer-encoding'] !== undefined ||
    (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
    !PLAIN_JSON.test(headers['content-type'] ?? '') ||
    !(length && DECIMAL.test(length)) ||
    Number(length) === 0 ||
    Number(length) > DEFAULT_JSON_BODY_BYTES
  ) {
    return null;
  }
  const id = Number(PLAIN_EVENTS_PATH.exec(request.url)?.[1]);
  return id <= MAX_ID ? id : null;
}

/** The body, parsed as body-parser parses JSON (`strict: false`); its length is the declared one. */
function readJson(request: Request): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('error', reject);
    request.once('close', () => {
      if (!request.complete) {
        reject(new BodyReadError(400, 'request.aborted', 'request aborted'));
      }
    });
    request.once('end', () => {
      try {
        resolve(JSON.parse(UTF8.decode(Buffer.concat(chunks))));
      } catch (error) {
        reject(
          new BodyReadError(400, 'entity.parse.failed', (error as Error).message ?? 'bad JSON'),
        );
      }
    });
  });
}
