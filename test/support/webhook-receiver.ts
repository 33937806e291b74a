import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver got it, and what it answered. */
export interface ReceivedWebhook {
  /** webhook-id header: the same on every attempt of one event. */
  id: string;
  /** webhook-timestamp header (Unix seconds). */
  timestamp: number;
  signature: string;
  /** At least one v1 signature of the header matched a trusted secret, and the timestamp is fresh. */
  signatureValid: boolean;
  /** The trusted secrets that some signature of the header matched. */
  matchedSecrets: string[];
  raw: string;
  body: Record<string, any>;
  path: string;
  headers: IncomingHttpHeaders;
  at: Date;
  /** The status answered; 0 while held (or when the connection was cut first). */
  answered: number;
}

/**
 * A webhook receiver on 127.0.0.1, written from the Standard Webhooks convention (not from the
 * service's code): it verifies `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the
 * base64-decoded bytes after `whsec_`, and answers 401 when no signature matches. It can fail
 * the next N requests, or hold them unanswered (to leave an attempt in flight).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | undefined;
  private readonly secrets = new Set<string>();
  private failures: { remaining: number; status: number } = { remaining: 0, status: 500 };
  private holds = 0;
  private readonly held = new Set<ServerResponse>();
  private waiters: Array<() => void> = [];

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.receive(req.url ?? '/', req.headers, Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.held.clear();
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** Base URL; add a path to tell webhooks apart. */
  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) {
      throw new Error('WebhookReceiver not started');
    }
    return `http://127.0.0.1:${address.port}`;
  }

  /** Adds secrets a request may be signed with (one matching signature is enough). */
  trust(...secrets: string[]): void {
    for (const secret of secrets) {
      this.secrets.add(secret);
    }
  }

  /** The next `count` correctly signed requests answer `status` instead of 204. */
  failNext(count: number, status = 500): void {
    this.failures = { remaining: count, status };
  }

  /** The next `count` requests get no answer until the connection is cut (stop, or a timeout). */
  holdNext(count: number): void {
    this.holds = count;
  }

  /** Requests answered 2xx, in arrival order. */
  accepted(path?: string): ReceivedWebhook[] {
    return this.received.filter(
      (r) => r.answered >= 200 && r.answered < 300 && (path === undefined || r.path === path),
    );
  }

  /** What a de-duplicating receiver keeps: the first accepted request of each webhook-id. */
  unique(path?: string): ReceivedWebhook[] {
    const seen = new Set<string>();
    return this.accepted(path).filter((r) => {
      if (seen.has(r.id)) {
        return false;
      }
      seen.add(r.id);
      return true;
    });
  }

  forPath(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves once `ready()` holds (checked on every request), or rejects after the timeout. */
  async waitFor(ready: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `WebhookReceiver: ${what} not met in ${timeoutMs} ms; got ${this.received.length} requests: ` +
            JSON.stringify(this.received.map((r) => [r.path, r.id, r.body.event, r.answered])),
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private receive(
    url: string,
    headers: IncomingHttpHeaders,
    bytes: Buffer,
    res: ServerResponse,
  ): void {
    const raw = bytes.toString('utf8');
    const id = String(headers['webhook-id'] ?? '');
    const timestamp = Number(headers['webhook-timestamp']);
    const signature = String(headers['webhook-signature'] ?? '');
    const matchedSecrets = [...this.secrets].filter((secret) =>
      signatureMatches(secret, signature, id, timestamp, raw),
    );
    const fresh = Math.abs(Date.now() / 1000 - timestamp) <= 300;
    const record: ReceivedWebhook = {
      id,
      timestamp,
      signature,
      signatureValid: matchedSecrets.length > 0 && fresh,
      matchedSecrets,
      raw,
      body: parse(raw),
      path: url,
      headers,
      at: new Date(),
      answered: 0,
    };
    this.received.push(record);
    if (this.holds > 0) {
      this.holds -= 1;
      this.held.add(res);
      res.on('close', () => this.held.delete(res));
      this.notify();
      return;
    }
    let status = 204;
    if (!record.signatureValid) {
      status = 401;
    } else if (this.failures.remaining > 0) {
      this.failures.remaining -= 1;
      status = this.failures.status;
    }
    record.answered = status;
    res.writeHead(status, { 'Content-Type': 'text/plain' });
    res.end(status === 204 ? undefined : `recusado (${status})`);
    this.notify();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) {
      wake();
    }
  }
}

/** Standard Webhooks verification, independent of the service's implementation. */
export function signatureMatches(
  secret: string,
  header: string,
  id: string,
  timestamp: number,
  body: string,
): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return header.split(' ').some((part) => {
    const [version, value] = part.split(',', 2);
    if (version !== 'v1' || !value) {
      return false;
    }
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function parse(raw: string): Record<string, any> {
  try {
    return JSON.parse(raw) as Record<string, any>;
  } catch {
    return {};
  }
}
