import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonHeadersOf, writeJson } from '../../../common/http/json-response';
import type { MetaWebhookSource } from '../../gateway/application/meta-webhook-sources';
import { answerError, isPlainJsonBody, readBody } from './gateway-events.route';
import { META_SIGNATURE_HEADER, MetaWebhookReception } from './meta-webhook-reception';

/** The events route, with a query (Meta's verification carries one). */
const EVENTS_PATH = /^\/api\/gateway-events\/([1-9]\d{0,9})\/?(\?.*)?$/i;
const MAX_ID = 2_147_483_647;
/** The controller's route, as the request metrics label it. */
const ROUTE = { path: '/api/gateway-events/:configurationId' };
const ACKNOWLEDGEMENT = JSON.stringify({ received: true });
const ACKNOWLEDGEMENT_HEADERS = jsonHeadersOf(ACKNOWLEDGEMENT);

/**
 * Meta's requests to a Cloud API configuration's events route, served ahead of Express like
 * Evolution's (GatewayEventsRoute): the signature is over the raw bytes, which Express's JSON
 * parser would not keep. It takes a GET (verification) and a POST of a JSON body of a known
 * length under the route's 1 MB that carries X-Hub-Signature-256, when the route's id is a
 * Cloud API configuration; everything else (Evolution's events, an unsigned POST, an unknown
 * id) is passed on untouched, its body unread, and answered as before (the gate's 401).
 */
@Injectable()
export class MetaWebhookRoute {
  private readonly logger = new Logger(MetaWebhookRoute.name);

  constructor(private readonly reception: MetaWebhookReception) {}

  handle(request: IncomingMessage, response: ServerResponse, pass: () => void): void {
    const id = metaRequestIdOf(request);
    if (id === null) {
      pass();
      return;
    }
    this.reception
      .sourceOf(id)
      .catch(() => null)
      .then((source) => (source ? this.serve(source, request, response) : pass()), pass);
  }

  private serve(
    source: MetaWebhookSource,
    request: IncomingMessage,
    response: ServerResponse,
  ): void {
    (request as IncomingMessage & { route: typeof ROUTE }).route = ROUTE;
    if (request.method === 'GET') {
      this.verify(source, request, response);
      return;
    }
    readBody(request)
      .then((raw) => this.reception.receive(source, raw, request.headers[META_SIGNATURE_HEADER]))
      .then(
        () => writeJson(response, 200, ACKNOWLEDGEMENT, ACKNOWLEDGEMENT_HEADERS),
        (error: unknown) => answerError(request, response, error, this.logger),
      );
  }

  private verify(
    source: MetaWebhookSource,
    request: IncomingMessage,
    response: ServerResponse,
  ): void {
    try {
      const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
      const challenge = this.reception.verify(source, query);
      response.writeHead(200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Length': Buffer.byteLength(challenge),
      });
      response.end(challenge);
    } catch (error) {
      answerError(request, response, error, this.logger);
    }
  }
}

/** The configuration's id when the request may be Meta's (a GET, or a signed JSON POST); else null. */
export function metaRequestIdOf(
  request: Pick<IncomingMessage, 'method' | 'url' | 'headers'>,
): number | null {
  const signedPost =
    request.method === 'POST' &&
    typeof request.headers[META_SIGNATURE_HEADER] === 'string' &&
    isPlainJsonBody(request.headers);
  if (request.method !== 'GET' && !signedPost) {
    return null;
  }
  const id = Number(EVENTS_PATH.exec(request.url ?? '')?.[1]);
  return id <= MAX_ID ? id : null;
}
