import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 speaking the subset of Meta's Graph API (WhatsApp Cloud API)
 * the service uses, built from Meta's documented request and response shapes. Each concern
 * registers its routes in a file of its own (numbers and templates, messages, webhooks sent
 * back); this file holds the server, the request log and Meta's error envelope.
 */

/** One request as the fake received it. */
export interface GraphRequest {
  method: string;
  /** The path without the query, e.g. /v23.0/1234567890/messages */
  path: string;
  query: URLSearchParams;
  /** The `Authorization` header's bearer token, or null. */
  token: string | null;
  body: unknown;
  at: Date;
}

export interface GraphAnswer {
  status: number;
  body: unknown;
}

/**
 * A route's handler: an answer, or null when the route does not apply (the next one is tried).
 * `params` are the path's `:name` segments.
 */
export type GraphHandler = (
  request: GraphRequest,
  params: Record<string, string>,
) => GraphAnswer | null | Promise<GraphAnswer | null>;

/** Meta's error envelope: `{error: {message, type, code, error_subcode?, fbtrace_id, error_data?}}`. */
export function graphError(
  status: number,
  code: number,
  message: string,
  extra: { type?: string; subcode?: number; details?: string } = {},
): GraphAnswer {
  return {
    status,
    body: {
      error: {
        message,
        type: extra.type ?? 'OAuthException',
        code,
        ...(extra.subcode === undefined ? {} : { error_subcode: extra.subcode }),
        ...(extra.details === undefined ? {} : { error_data: { details: extra.details } }),
        fbtrace_id: `A${Math.random().toString(36).slice(2, 12)}`,
      },
    },
  };
}

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: GraphHandler;
}

export class FakeGraphApiServer {
  readonly requests: GraphRequest[] = [];
  /** False: requests are answered but not logged (a benchmark's hundreds of thousands). */
  keepRequests = true;
  private readonly routes: Route[] = [];
  private server: Server | null = null;
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** `path` like `/:version/:phoneNumberId/messages`; the first route that answers wins. */
  route(method: string, path: string, handler: GraphHandler): void {
    const names: string[] = [];
    const source = path.replace(/:(\w+)/g, (_match, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}/?$`), names, handler });
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = await this.read(req);
    if (this.keepRequests) {
      this.requests.push(request);
    }
    const answer = (await this.answer(request)) ?? graphError(400, 100, 'Unsupported request');
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }

  private async answer(request: GraphRequest): Promise<GraphAnswer | null> {
    for (const route of this.routes) {
      const match = route.method === request.method ? route.pattern.exec(request.path) : null;
      if (!match) {
        continue;
      }
      const params = Object.fromEntries(
        route.names.map((name, i) => [name, decodeURIComponent(match[i + 1])]),
      );
      const answer = await route.handler(request, params);
      if (answer) {
        return answer;
      }
    }
    return null;
  }

  private async read(req: IncomingMessage): Promise<GraphRequest> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) {
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const auth = req.headers.authorization ?? '';
    return {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      token: auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : null,
      body: text === '' ? null : safeJson(text),
      at: new Date(),
    };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
