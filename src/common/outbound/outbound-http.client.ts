import { Injectable } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { CheckedTarget, OutboundTargetGuard } from './outbound-target.guard';
import { OutboundError } from './outbound.errors';

export type OutboundMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OutboundRequest {
  method: OutboundMethod;
  url: string | URL;
  headers?: Record<string, string>;
  /** Sent as JSON with Content-Type application/json; mutually exclusive with `body`. */
  json?: unknown;
  body?: string | Buffer;
  /** Budget for the whole exchange: DNS, connect, request, and reading the full response. */
  timeoutMs: number;
  maxResponseBytes?: number;
  /** Lets the caller cancel (e.g. on shutdown); reported as `aborted`, not `timeout`. */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface OutboundJsonResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The parsed body; undefined when it is empty or not JSON (then see `text`). */
  data: unknown;
  text: string;
}

export type OutboundJsonOptions = Omit<OutboundRequest, 'method' | 'url' | 'json' | 'body'>;

const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * Redirects are not followed: a redirect to an internal address would bypass the
 * target check, and none of our targets needs one.
 *
 * Connections are kept alive: a campaign sends one request per message to the same gateway,
 * and a new TCP connection each time cost more than the request. A pooled socket stays
 * connected to the address the guard checked when it was opened. Node closes an idle socket
 * a second before the server's Keep-Alive timeout hint, so a send does not go out on a socket
 * the server is closing; without a hint, after IDLE_SOCKET_MS.
 */
const IDLE_SOCKET_MS = 4_000;
const AGENT_OPTIONS: http.AgentOptions = {
  keepAlive: true,
  maxFreeSockets: 64,
  timeout: IDLE_SOCKET_MS,
};
const httpAgent = new http.Agent(AGENT_OPTIONS);
const httpsAgent = new https.Agent(AGENT_OPTIONS);

/**
 * The one HTTP client for calls leaving the service (gateway, media downloads, webhooks).
 * Every request passes the target check first and has a time budget. HTTP error statuses
 * are responses, not exceptions: callers classify them. What throws is an OutboundError
 * (refused target, timeout, network failure, oversized response).
 */
@Injectable()
export class OutboundHttpClient {
  constructor(private readonly guard: OutboundTargetGuard) {}

  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const deadline = AbortSignal.timeout(request.timeoutMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    const abortError = (): OutboundError =>
      deadline.aborted
        ? new OutboundError(
            'timeout',
            `Tempo esgotado (${request.timeoutMs} ms) ao chamar ${hostOf(request.url)}`,
          )
        : new OutboundError('aborted', `Chamada a ${hostOf(request.url)} cancelada`);
    const target = await untilAborted(this.guard.check(request.url), signal, abortError);
    return exchange(target, request, signal, abortError);
  }

  async requestJson(request: OutboundRequest): Promise<OutboundJsonResponse> {
    const response = await this.request({
      ...request,
      headers: { Accept: 'application/json', ...request.headers },
    });
    const text = response.body.toString('utf8');
    return { status: response.status, headers: response.headers, data: parseJson(text), text };
  }

  getJson(url: string | URL, options: OutboundJsonOptions): Promise<OutboundJsonResponse> {
    return this.requestJson({ ...options, method: 'GET', url });
  }

  postJson(
    url: string | URL,
    json: unknown,
    options: OutboundJsonOptions,
  ): Promise<OutboundJsonResponse> {
    return this.requestJson({ ...options, method: 'POST', url, json });
  }
}

function hostOf(url: string | URL): string {
  try {
    return (typeof url === 'string' ? new URL(url) : url).host;
  } catch {
    return '(URL inválida)';
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  abortError: () => OutboundError,
): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(abortError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Connections go only to the addresses the guard checked (no second DNS answer). */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const usable = options.family
      ? addresses.filter((a) => a.family === options.family)
      : [...addresses];
    if (usable.length === 0) {
      callback(
        Object.assign(new Error('no address of the requested family'), { code: 'ENOTFOUND' }),
        '',
        0,
      );
    } else if (options.all) {
      callback(null, usable);
    } else {
      callback(null, usable[0].address, usable[0].family);
    }
  };
}

function encodeBody(request: OutboundRequest): { payload?: Buffer; contentType?: string } {
  if (request.json !== undefined) {
    return { payload: Buffer.from(JSON.stringify(request.json)), contentType: 'application/json' };
  }
  if (request.body !== undefined) {
    return { payload: Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body) };
  }
  return {};
}

/** How an exchange ends: with an error, or with the whole response. */
type Finish = (error: OutboundError | null, response?: OutboundResponse) => void;

function exchange(
  target: CheckedTarget,
  request: OutboundRequest,
  signal: AbortSignal,
  abortError: () => OutboundError,
): Promise<OutboundResponse> {
  const { payload, contentType } = encodeBody(request);
  const maxBytes = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return new Promise<OutboundResponse>((resolve, reject) => {
    let settled = false;
    // Once the socket is connected (TLS included) the request may reach the server; before
    // that, a failure proves nothing was delivered.
    let connected = false;
    let answered = false;
    const finish: Finish = (error, response) => {
      if (settled) {
        return;
      }
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (error) {
        outgoing.destroy();
        const failure = answered ? error : unanswered(target, error);
        reject(connected ? failure.afterRequestWritten() : failure);
      } else {
        resolve(response as OutboundResponse);
      }
    };
    const onAbort = (): void => finish(abortError());

    const outgoing = openRequest(target, request, requestHeaders(request, payload, contentType));
    whenConnected(outgoing, target, () => {
      connected = true;
    });
    outgoing.on('error', (error) => finish(networkError(target, error)));
    outgoing.on('response', (incoming) => {
      answered = true;
      readResponse(incoming, target, maxBytes, finish);
    });
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    outgoing.end(payload);
  });
}

function requestHeaders(
  request: OutboundRequest,
  payload: Buffer | undefined,
  contentType: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { 'User-Agent': 'campaign-service', ...request.headers };
  if (contentType && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = contentType;
  }
  if (payload) {
    headers['Content-Length'] = String(payload.length);
  }
  return headers;
}

function openRequest(
  target: CheckedTarget,
  request: OutboundRequest,
  headers: Record<string, string>,
): http.ClientRequest {
  const isHttps = target.url.protocol === 'https:';
  return (isHttps ? https : http).request({
    method: request.method,
    hostname: target.hostname,
    port: target.url.port || undefined,
    path: `${target.url.pathname}${target.url.search}`,
    headers,
    agent: isHttps ? httpsAgent : httpAgent,
    lookup: pinnedLookup(target.addresses),
    servername: isHttps && !isIPLiteral(target.hostname) ? target.hostname : undefined,
  });
}

/** Calls `connected` once the request's socket is connected (after TLS, for https). */
function whenConnected(
  outgoing: http.ClientRequest,
  target: CheckedTarget,
  connected: () => void,
): void {
  outgoing.on('socket', (socket) => {
    if (socket.connecting) {
      socket.once(target.url.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    } else {
      connected();
    }
  });
}

/** Reads the whole body, up to `maxBytes`, and finishes the exchange with it. */
function readResponse(
  incoming: http.IncomingMessage,
  target: CheckedTarget,
  maxBytes: number,
  finish: Finish,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  incoming.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      finish(
        new OutboundError(
          'response_too_large',
          `Resposta de ${target.url.host} maior que ${maxBytes} bytes`,
        ),
      );
      return;
    }
    chunks.push(chunk);
  });
  incoming.on('error', (error) => finish(networkError(target, error)));
  incoming.on('aborted', () => finish(networkError(target, new Error('response aborted'))));
  incoming.on('end', () =>
    finish(null, {
      status: incoming.statusCode ?? 0,
      headers: incoming.headers,
      body: Buffer.concat(chunks),
    }),
  );
}

function isIPLiteral(hostname: string): boolean {
  return /^[\d.]+$/.test(hostname) || hostname.includes(':');
}

/**
 * Every failure to get an answer out of a connection reads the same, whatever the cause
 * (refused, reset, not HTTP at all): a tenant sees whether the gateway answered, not which
 * ports of a host are open. The cause (its errno code) stays on the error for our own logs.
 */
function networkError(target: CheckedTarget, error: Error): OutboundError {
  return new OutboundError('network', `Não foi possível conectar ao destino ${target.url.host}`, {
    cause: error,
  });
}

/**
 * A budget that ran out before any answer began reads like a refused connection: a port that
 * accepts and never answers looks like a closed one. Whether the request may have arrived is
 * still told apart (by the caller), so a send that timed out after writing stays uncertain.
 */
function unanswered(target: CheckedTarget, error: OutboundError): OutboundError {
  return error.kind === 'timeout' ? networkError(target, error) : error;
}
