import { createServer as createHttpServer, Server } from 'node:http';
import { AddressInfo, createServer as createTcpServer, Socket } from 'node:net';
import { createWelcomeAutomation, importDatabase } from '../../support/automations';
import { campaignBody, connectedInstance, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';
import { WebhookReceiver } from '../../support/webhook-receiver';

const SECRET = 'db_password=s3nha-interna-42';
const MARKER = `SECRET-INTERNAL-DATA: ${SECRET}`;
const PATH = '/api/gateway-configs';

/** A service on the internal network: every request gets `status` and a body holding MARKER. */
class InternalService {
  status = 503;
  body = MARKER;
  requests = 0;
  private server: Server | undefined;

  async start(): Promise<void> {
    this.server = createHttpServer((req, res) => {
      this.requests += 1;
      req.resume();
      res.writeHead(this.status, { 'Content-Type': 'text/plain' }).end(this.body);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** A port that is open but speaks something other than HTTP (a database, a cache…). */
async function tcpService(onConnection: (socket: Socket) => void): Promise<{
  port: number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function closedPort(): Promise<number> {
  const service = await tcpService(() => undefined);
  await service.close();
  return service.port;
}

function expectNoMarker(value: unknown): void {
  expect(JSON.stringify(value)).not.toContain(SECRET);
}

/**
 * A company may point its gateway or webhook at any address the target check lets through,
 * with OUTBOUND_DENY_PRIVATE=false the internal network included. Whatever answers there, the
 * company sees only the HTTP status and our own reason: never the body, and the same words
 * for a closed port as for an open one that does not speak HTTP.
 */
describe('answers of services that are not the gateway', () => {
  const receiver = new WebhookReceiver();
  const internal = new InternalService();
  const {
    t,
    fake,
    pool,
    companies: [company],
  } = useE2eFixture({
    database: 'internal_answers',
    env: {
      WEBHOOK_RETRY_SCHEDULE_MS: 'none',
      WEBHOOK_TIMEOUT_MS: '2000',
      GATEWAY_SEND_TIMEOUT_MS: '1000',
    },
    servers: [receiver, internal],
    companies: ['Curiosa'],
  });
  beforeEach(() => {
    internal.status = 503;
    internal.body = MARKER;
  });

  async function configAt(url: string, extra: Record<string, unknown> = {}): Promise<number> {
    const created = await company
      .post(PATH, { name: 'Interno', url, apiKey: 'k', instance: 'i', ...extra })
      .expect(201);
    return created.body.id as number;
  }

  it('answers the status route with the HTTP status only, whatever the service answers', async () => {
    const id = await configAt(internal.url);
    for (const status of [200, 400, 401, 403, 404, 409, 429, 500, 502, 503]) {
      for (const body of [
        MARKER,
        JSON.stringify({ message: MARKER, error: MARKER }),
        // A framework's default error (Spring Boot's, for one) looks like the gateway's own.
        JSON.stringify({ status, error: 'Internal', message: MARKER }),
      ]) {
        internal.status = status;
        internal.body = body;
        const before = internal.requests;
        const response = await company.get(`${PATH}/${id}/status`);
        expect(internal.requests).toBeGreaterThan(before);
        expectNoMarker(response.body);
        if (status !== 200) {
          expectErrorBody(response, status === 401 || status === 403 || status === 404 ? 400 : 503);
        }
      }
    }
  });

  it('refuses create and update with delivery tracking without the service’s body', async () => {
    const created = await company.post(PATH, {
      name: 'Interno rastreado',
      url: internal.url,
      apiKey: 'k',
      instance: 'i',
      trackDelivery: true,
    });
    expectNoMarker(created.body);
    expect(created.status).toBeGreaterThanOrEqual(400);

    const id = await configAt(internal.url);
    const updated = await company.put(`${PATH}/${id}`, { trackDelivery: true });
    expectNoMarker(updated.body);
    expect(updated.status).toBeGreaterThanOrEqual(400);
  });

  it('reports a failed test send without the service’s body', async () => {
    const gatewayConfigId = await configAt(internal.url);
    const database = await importDatabase(company, [{ telefone: '11987660001', nome: 'Ana' }]);
    const automation = await createWelcomeAutomation(company, database.id, gatewayConfigId);
    internal.status = 500;
    const response = await company
      .post(`/api/automations/${automation.id}/test-send`, { phoneNumber: '11987660001' })
      .expect(200);
    expect(response.body).toMatchObject({ success: false, error: expect.any(String) });
    expect(response.body.error).toContain('HTTP 500');
    expectNoMarker(response.body);
  });

  it('refuses a campaign whose gateway check fails without the service’s body', async () => {
    const response = await company.post(
      '/api/campaigns',
      campaignBody(fake, { instance: 'i', apiKey: 'k' }, { gatewayUrl: internal.url }),
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(response.body)).toContain('HTTP 503');
    expectNoMarker(response.body);
  });

  it('records a webhook receiver’s answer as its status only, in the API and the tables', async () => {
    const hooked = await TestCompany.register(t.http, 'Webhook interno');
    await hooked
      .put(`/api/companies/${hooked.id}/webhook`, {
        url: `${internal.url}/hook`,
        events: ['campaign.started'],
      })
      .expect(201);
    internal.status = 500;
    const campaign = await hooked
      .post('/api/campaigns', campaignBody(fake, connectedInstance(fake)))
      .expect(200);
    await waitForCampaign(hooked, campaign.body.id, (c) => c.status === 'COMPLETED');
    const deliveries = await pollDeliveries(hooked);
    expect(deliveries).toEqual([
      expect.objectContaining({
        status: 'FAILED',
        lastStatusCode: 500,
        lastError: 'o destino respondeu HTTP 500',
      }),
    ]);
    const attempts = await hooked
      .get(`/api/companies/${hooked.id}/webhook/deliveries/${deliveries[0].id}/attempts`)
      .expect(200);
    expect(attempts.body).toEqual([expect.objectContaining({ statusCode: 500 })]);
    expectNoMarker(attempts.body);
    const stored = await pool.query(
      `SELECT d.*, a.* FROM webhook_deliveries d
         JOIN webhook_delivery_attempts a ON a.delivery_id = d.id
        WHERE d.company_id = $1`,
      [hooked.id],
    );
    expect(stored.rows).toHaveLength(1);
    expectNoMarker(stored.rows);
  });

  async function pollDeliveries(of: TestCompany): Promise<Array<Record<string, any>>> {
    return until(
      async () => {
        const log = (await of.get(`/api/companies/${of.id}/webhook/deliveries`).expect(200)).body;
        expectNoMarker(log);
        return log;
      },
      (log) => log.length > 0 && log.every((d: { status: string }) => d.status === 'FAILED'),
      20_000,
      'FAILED deliveries',
    );
  }

  it('says the same for a closed port as for open ports that do not speak HTTP', async () => {
    const banner = await tcpService((socket) => socket.end('-ERR unknown command\r\n'));
    const reset = await tcpService((socket) => socket.resetAndDestroy());
    const silentClose = await tcpService((socket) => socket.end());
    try {
      const messages: string[] = [];
      for (const port of [await closedPort(), banner.port, reset.port, silentClose.port]) {
        const id = await configAt(`http://127.0.0.1:${port}`);
        const message = expectErrorBody(await company.get(`${PATH}/${id}/status`), 503);
        messages.push(message.replace(String(port), '<porta>'));
      }
      expect(new Set(messages).size).toBe(1);
      expect(messages[0]).toBe(
        'Falha ao consultar o gateway: Não foi possível conectar ao destino 127.0.0.1:<porta>',
      );
    } finally {
      await Promise.all([banner.close(), reset.close(), silentClose.close()]);
    }
  });

  it('says the same for a port that accepts and never answers as for a closed one', async () => {
    // The send's budget runs out on the silent port after the request was written.
    const silent = await tcpService(() => undefined);
    try {
      const database = await importDatabase(company, [{ telefone: '11987660002', nome: 'Bia' }]);
      const errors: string[] = [];
      for (const port of [await closedPort(), silent.port]) {
        const automation = await createWelcomeAutomation(
          company,
          database.id,
          await configAt(`http://127.0.0.1:${port}`),
        );
        const response = await company
          .post(`/api/automations/${automation.id}/test-send`, { phoneNumber: '11987660002' })
          .expect(200);
        expect(response.body.success).toBe(false);
        errors.push(String(response.body.error).replace(String(port), '<porta>'));
      }
      expect(errors).toEqual([
        'Não foi possível conectar ao destino 127.0.0.1:<porta>',
        'Não foi possível conectar ao destino 127.0.0.1:<porta>',
      ]);
    } finally {
      await silent.close();
    }
  });

  it('still shows the message of the gateway’s own error envelope', async () => {
    const id = await configAt(internal.url);
    internal.body = JSON.stringify({
      status: 503,
      error: 'Service Unavailable',
      response: { message: ['Instância em manutenção'] },
    });
    const message = expectErrorBody(await company.get(`${PATH}/${id}/status`), 503);
    expect(message).toBe(
      'Falha ao consultar o gateway: Gateway indisponível no momento (HTTP 503): ["Instância em manutenção"]',
    );
  });
});

/**
 * OUTBOUND_DENY_PRIVATE=true refuses loopback targets; OUTBOUND_ALLOW_HOSTS opens exactly the
 * entries it lists: an address with its port, or a name as written.
 */
describe('OUTBOUND_DENY_PRIVATE with OUTBOUND_ALLOW_HOSTS', () => {
  const internal = new InternalService();
  const portOf = (url: string): string => new URL(url).port;
  const {
    fake,
    companies: [company],
  } = useE2eFixture({
    servers: [internal],
    env: () => ({
      OUTBOUND_DENY_PRIVATE: 'true',
      OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${portOf(fake.url)}, localhost:${portOf(internal.url)}`,
    }),
    companies: ['Com lista'],
  });
  let fakePort: string;
  let internalPort: string;
  beforeAll(() => {
    fakePort = portOf(fake.url);
    internalPort = portOf(internal.url);
  });

  it('reaches the listed gateway address and port, by the address or a name of it', async () => {
    const gw = connectedInstance(fake);
    for (const url of [fake.url, `http://localhost:${fakePort}`]) {
      const created = await company.post(PATH, { name: 'Gateway', url, ...gw }).expect(201);
      const status = await company.get(`${PATH}/${created.body.id}/status`).expect(200);
      expect(status.body).toMatchObject({ instance: gw.instance, state: 'open' });
    }
  });

  it('refuses a listed name’s address, and the listed address on another port or a neighbour', async () => {
    const before = internal.requests;
    for (const url of [`http://127.0.0.1:${internalPort}`, `http://127.0.0.2:${fakePort}`]) {
      const response = await company.post(PATH, { name: 'Outro', url, apiKey: 'k', instance: 'i' });
      expect(expectErrorBody(response, 400)).toBe(
        '{url=aponta para um endereço de rede não permitido}',
      );
    }
    const webhook = await company.put(`/api/companies/${company.id}/webhook`, {
      url: `${internal.url}/hook`,
    });
    expectErrorBody(webhook, 400);
    expect(internal.requests).toBe(before);
  });

  it('reaches a listed name on its port', async () => {
    const created = await company
      .post(PATH, {
        name: 'Por nome',
        url: `http://localhost:${internalPort}`,
        apiKey: 'k',
        instance: 'i',
      })
      .expect(201);
    const before = internal.requests;
    expectErrorBody(await company.get(`${PATH}/${created.body.id}/status`), 503);
    expect(internal.requests).toBeGreaterThan(before);
  });
});
