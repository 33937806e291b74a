import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttpClient } from '../../../src/common/outbound/outbound-http.client';
import { OutboundTargetGuard } from '../../../src/common/outbound/outbound-target.guard';
import { OutboundError, OutboundErrorKind } from '../../../src/common/outbound/outbound.errors';
import type { AppConfig } from '../../../src/config/app-config.service';
import { until } from '../../support/waiting';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A small real server whose answers each test scripts. */
class ScriptedServer {
  readonly seen: Seen[] = [];
  handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        this.handler(req, res);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

function client(outboundDenyPrivate = false): OutboundHttpClient {
  return new OutboundHttpClient(
    new OutboundTargetGuard({
      outboundDenyPrivate,
      outboundAllowHosts: [],
    } as Partial<AppConfig> as AppConfig),
  );
}

async function kindOf(work: Promise<unknown>): Promise<OutboundErrorKind> {
  try {
    await work;
  } catch (error) {
    if (error instanceof OutboundError) {
      return error.kind;
    }
    throw error;
  }
  throw new Error('expected the request to fail');
}

describe('OutboundHttpClient over real HTTP', () => {
  const server = new ScriptedServer();
  const http = client();
  let base: string;

  beforeAll(async () => {
    await server.start();
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(() => {
    server.seen.length = 0;
  });

  it('posts JSON and parses the JSON answer', async () => {
    server.handler = (_req, res) => {
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end('{"ok":true,"n":2}');
    };
    const response = await http.postJson(
      `${base}/api/x?y=1`,
      { texto: 'olá' },
      { timeoutMs: 5000, headers: { apikey: 'k' } },
    );
    expect(response.status).toBe(201);
    expect(response.data).toEqual({ ok: true, n: 2 });
    expect(server.seen[0]).toMatchObject({
      method: 'POST',
      url: '/api/x?y=1',
      body: '{"texto":"olá"}',
    });
    expect(server.seen[0].headers['content-type']).toBe('application/json');
    expect(server.seen[0].headers['content-length']).toBe(
      String(Buffer.byteLength('{"texto":"olá"}')),
    );
    expect(server.seen[0].headers.apikey).toBe('k');
    expect(server.seen[0].headers.accept).toBe('application/json');
  });

  it('returns error statuses as responses, with the text when it is not JSON', async () => {
    server.handler = (_req, res) => {
      res.writeHead(502);
      res.end('<html>Bad Gateway</html>');
    };
    const response = await http.getJson(`${base}/`, { timeoutMs: 5000 });
    expect(response.status).toBe(502);
    expect(response.data).toBeUndefined();
    expect(response.text).toBe('<html>Bad Gateway</html>');
  });

  it('does not follow redirects', async () => {
    server.handler = (_req, res) => {
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    };
    const response = await http.request({ method: 'GET', url: `${base}/go`, timeoutMs: 5000 });
    expect(response.status).toBe(302);
    expect(server.seen).toHaveLength(1);
  });

  it('reaches a host name through the checked DNS answer', async () => {
    server.handler = (_req, res) => res.end('ok');
    const response = await http.request({
      method: 'GET',
      url: `http://localhost:${server.port}/by-name`,
      timeoutMs: 5000,
    });
    expect(response.body.toString()).toBe('ok');
    expect(server.seen[0].headers.host).toBe(`localhost:${server.port}`);
  });

  it('gives up on an answer that does not begin in time as on a failed connection', async () => {
    server.handler = (_req, res) => {
      // A real span: the answer begins long after the client's 150 ms.
      setTimeout(() => res.end('late'), 1000);
    };
    const failure = await http
      .request({ method: 'GET', url: base, timeoutMs: 150 })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({
      kind: 'network',
      message: `Não foi possível conectar ao destino 127.0.0.1:${server.port}`,
      // The request was written: a send that gets no answer may still have gone out.
      requestMayHaveArrived: true,
    });
  });

  it('times out a response whose body stalls', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200);
      res.write('partial');
      // A real span: the body stalls long past the client's 150 ms.
      setTimeout(() => res.end(), 1000);
    };
    expect(await kindOf(http.request({ method: 'GET', url: base, timeoutMs: 150 }))).toBe(
      'timeout',
    );
  });

  it('reports a cancellation by the caller as aborted', async () => {
    server.handler = (_req, res) => {
      // A real span: the answer is still to come when the caller cancels.
      setTimeout(() => res.end('late'), 1000);
    };
    const controller = new AbortController();
    const pending = http.request({
      method: 'GET',
      url: base,
      timeoutMs: 5000,
      signal: controller.signal,
    });
    await until(
      () => server.seen.length,
      (seen) => seen > 0,
    );
    controller.abort();
    expect(await kindOf(pending)).toBe('aborted');
  });

  it('stops reading a response over the size limit', async () => {
    server.handler = (_req, res) => res.end('x'.repeat(10_000));
    expect(
      await kindOf(
        http.request({ method: 'GET', url: base, timeoutMs: 5000, maxResponseBytes: 1000 }),
      ),
    ).toBe('response_too_large');
  });

  it('refuses a loopback target with OUTBOUND_DENY_PRIVATE=true before connecting', async () => {
    expect(await kindOf(client(true).request({ method: 'GET', url: base, timeoutMs: 5000 }))).toBe(
      'target_refused',
    );
    expect(
      await kindOf(
        client(true).request({
          method: 'GET',
          url: `http://localhost:${server.port}/`,
          timeoutMs: 5000,
        }),
      ),
    ).toBe('target_refused');
    expect(server.seen).toHaveLength(0);
  });

  it('refuses URLs that are not http(s)', async () => {
    expect(
      await kindOf(http.request({ method: 'GET', url: 'file:///etc/passwd', timeoutMs: 5000 })),
    ).toBe('invalid_url');
  });
});
