import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mapError } from '../../../common/http/all-exceptions.filter';
import { errorBody } from '../../../common/http/error-body';
import { DEFAULT_JSON_BODY_BYTES } from '../../../common/http/json-body.middleware';
import { jsonHeadersOf, writeJson } from '../../../common/http/json-response';
import { requestIdOf } from '../../../common/http/request-state';
import { assertSafeBody } from '../../../common/http/text-hygiene';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import {
  EventsSource,
  GatewayEventsSources,
} from '../../gateway/application/gateway-events-sources';
import { GatewayEventReception } from './gateway-event-reception';

/** The route as the gateway posts it; anything else (a query, a longer path…) goes the long way. */
const PLAIN_EVENTS_PATH = /^\/api\/gateway-events\/([1-9]\d{0,9})\/?$/i;
const MAX_ID = 2_147_483_647;
/** What body-parser's JSON parser reads as UTF-8 JSON without help (utf8 without the dash: 415). */
const PLAIN_JSON = /^application\/json\s*(;\s*charset\s*=\s*("utf-8"|utf-8)\s*)?$/i;
const DECIMAL = /^\d{1,9}$/;
/** The controller's route, as the request metrics label it (routeLabel reads Express's `route`). */
const ROUTE = { path: '/api/gateway-events/:configurationId' };

const ACKNOWLEDGEMENT = JSON.stringify({ received: true });
const ACKNOWLEDGEMENT_HEADERS = jsonHeadersOf(ACKNOWLEDGEMENT);
/** Strips a byte-order mark, as body-parser's decoding does; invalid bytes become U+FFFD, as there. */
const UTF8 = new TextDecoder();

/** Shaped as body-parser's errors, so that mapError answers them alike. */
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
 * The gateway's own events, served ahead of Express: at thousands a second, Express's own
 * per-request work (it swaps the prototypes of every request and response, which sends V8's
 * property lookups down their slow paths) and Nest's pipeline cost several times what storing
 * the event does. It takes only what the generic path would accept as it is (a POST of a
 * plain JSON body of a known length, under the route's 1 MB, carrying the secret of a
 * configuration that tracks delivery) and gives it the same treatment: the body read and
 * checked as JsonBodyMiddleware does (text, depth), the controller's own work
 * (GatewayEventReception), the same answers and error bodies. Anything else, refusals by the
 * gate included, is passed on to Express untouched, its body still unread.
 */
@Injectable()
export class GatewayEventsRoute {
  private readonly logger = new Logger(GatewayEventsRoute.name);

  constructor(
    private readonly sources: GatewayEventsSources,
    private readonly reception: GatewayEventReception,
  ) {}

  handle(request: IncomingMessage, response: ServerResponse, pass: () => void): void {
    const id = plainEventIdOf(request);
    const secret = request.headers[EVENTS_SECRET_HEADER];
    if (id === null || typeof secret !== 'string' || secret === '') {
      pass();
      return;
    }
    // Only configurations that track delivery: an id nobody tracks costs no query here, and
    // the gate answers it (and counts it against the address) as before.
    this.sources
      .eventsSource(id, secret, true)
      .catch(() => null)
      .then((source) => (source ? this.serve(source, request, response) : pass()), pass);
  }

  private serve(source: EventsSource, request: IncomingMessage, response: ServerResponse): void {
    (request as IncomingMessage & { route: typeof ROUTE }).route = ROUTE;
    readJson(request)
      .then((body) => {
        assertSafeBody(body);
        return this.reception.receive(source, body);
      })
      .then(
        () => writeJson(response, 200, ACKNOWLEDGEMENT, ACKNOWLEDGEMENT_HEADERS),
        (error: unknown) => answerError(request, response, error, this.logger),
      );
  }
}

/** The error body the pipeline's filter would answer, for a request served ahead of Express. */
export function answerError(
  request: IncomingMessage,
  response: ServerResponse,
  error: unknown,
  logger: Logger,
): void {
  const mapped = mapError(error, logger, requestIdOf(request));
  const path = (request.url ?? '').split('?')[0];
  const body = JSON.stringify(errorBody(mapped.status, mapped.message, path));
  for (const [name, value] of Object.entries(mapped.headers ?? {})) {
    response.setHeader(name, value);
  }
  writeJson(response, mapped.status, body);
}

/** The configuration's id when the request is a plain JSON event post; null otherwise. */
export function plainEventIdOf(
  request: Pick<IncomingMessage, 'method' | 'url' | 'headers'>,
): number | null {
  if (request.method !== 'POST' || !isPlainJsonBody(request.headers)) {
    return null;
  }
  const id = Number(PLAIN_EVENTS_PATH.exec(request.url ?? '')?.[1]);
  return id <= MAX_ID ? id : null;
}

/**
 * A plain JSON body of a known length, under the route's 1 MB: what body-parser would read as
 * it is (no transfer or content encoding to undo).
 */
export function isPlainJsonBody(headers: IncomingMessage['headers']): boolean {
  const length = headers['content-length'];
  const encoding = headers['content-encoding'];
  return (
    headers['transfer-encoding'] === undefined &&
    (encoding === undefined || encoding.toLowerCase() === 'identity') &&
    PLAIN_JSON.test(headers['content-type'] ?? '') &&
    !!length &&
    DECIMAL.test(length) &&
    Number(length) > 0 &&
    Number(length) <= DEFAULT_JSON_BODY_BYTES
  );
}

/** The body, parsed as body-parser parses JSON (`strict: false`); its length is the declared one. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const raw = await readBody(request);
  try {
    return JSON.parse(UTF8.decode(raw)) as unknown;
  } catch (error) {
    throw new BodyReadError(400, 'entity.parse.failed', (error as Error).message);
  }
}

/** The raw body as sent (its length is the declared one, checked by the caller). */
export function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('error', reject);
    request.once('close', () => {
      if (!request.complete) {
        reject(new BodyReadError(400, 'request.aborted', 'request aborted'));
      }
    });
    request.once('end', () => resolve(Buffer.concat(chunks)));
  });
}
