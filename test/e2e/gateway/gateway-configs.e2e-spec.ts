import { createServer } from 'node:net';
import { GatewayConfigUsageRegistry } from '../../../src/modules/gateway/application/gateway-config-usage.registry';
import { GatewayConfigsService } from '../../../src/modules/gateway/application/gateway-configs.service';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';

const API_KEY = 'chave-secreta-da-instancia-7F3A9C';
/** Both apps of this file share the database, so they share the key that opens its secrets. */
const ENCRYPTION_KEY = 'gateway-configs-e2e-encryption-key';
const PATH = '/api/gateway-configs';

interface ConfigBody {
  id: number;
  name: string;
  url: string;
  instance: string;
  createdAt: string;
  updatedAt: string;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function storedRow(id: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db().query(`SELECT * FROM gateway_configs WHERE id = $1`, [id]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe('gateway configurations', () => {
  const {
    t,
    fake,
    companies: [owner, stranger],
  } = useE2eFixture({ env: { ENCRYPTION_KEY }, companies: ['Dona do gateway', 'Outra empresa'] });

  const validBody = (): Record<string, unknown> => ({
    name: 'Vendas - WhatsApp principal',
    url: fake.url,
    apiKey: API_KEY,
    instance: 'acme-sales',
  });

  async function create(
    company: TestCompany = owner,
    body: Record<string, unknown> = validBody(),
  ): Promise<ConfigBody> {
    const response = await company.post(PATH, body).expect(201);
    return response.body as ConfigBody;
  }

  beforeEach(() => {
    fake.reset();
    fake.addInstance('acme-sales', { apiKey: API_KEY, state: 'open' });
  });

  describe('POST /api/gateway-configs', () => {
    it('creates a configuration and answers 201 with its public fields only', async () => {
      const response = await owner.post(PATH, validBody()).expect(201);
      expect(response.body).toEqual({
        id: expect.any(Number),
        name: 'Vendas - WhatsApp principal',
        url: fake.url,
        instance: 'acme-sales',
        trackDelivery: false,
        instanceState: null,
        eventsRefusedAt: null,
        eventsRefusedReason: null,
        reachOutLock: null,
        dailyLimit: null,
        warmupStartPerDay: null,
        warmupGrowthPercent: null,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        updatedAt: response.body.createdAt,
        // The Cloud API's fields (cloud-api-configs.e2e-spec.ts), null for Evolution API.
        provider: 'EVOLUTION',
        phoneNumberId: null,
        businessAccountId: null,
        apiVersion: null,
        displayPhoneNumber: null,
        verifiedName: null,
        qualityRating: null,
        messagingLimitTier: null,
        numberCheckedAt: null,
        throughputPerSecond: null,
        webhookUrl: null,
        webhookVerifyToken: null,
      });
      const row = await storedRow(response.body.id);
      expect(row).toMatchObject({
        company_id: owner.id,
        name: 'Vendas - WhatsApp principal',
        instance: 'acme-sales',
      });
    });

    it('stores the API key encrypted, never in clear, and still opens it for sending', async () => {
      const created = await create();
      const row = await storedRow(created.id);
      const stored = row?.api_key_encrypted as string;
      expect(stored).toMatch(/^v1:/);
      expect(stored).not.toContain(API_KEY);
      expect(stored).not.toContain(Buffer.from(API_KEY).toString('base64'));
      expect(JSON.stringify(row)).not.toContain(API_KEY);
      const resolved = await t.app.get(GatewayConfigsService).resolveTarget(owner.id, created.id);
      expect(resolved).toEqual({
        config: {
          id: created.id,
          name: created.name,
          url: fake.url,
          instance: 'acme-sales',
          provider: 'EVOLUTION',
        },
        target: { url: fake.url, apiKey: API_KEY, instance: 'acme-sales' },
      });
    });

    it('encrypts equal keys differently', async () => {
      const a = await create();
      const b = await create();
      expect((await storedRow(a.id))?.api_key_encrypted).not.toBe(
        (await storedRow(b.id))?.api_key_encrypted,
      );
    });

    it('trims surrounding spaces of every field', async () => {
      const created = await create(owner, {
        name: '  Suporte  ',
        url: ` ${fake.url}/ `,
        apiKey: ` ${API_KEY} `,
        instance: ' acme-sales ',
      });
      expect(created).toMatchObject({
        name: 'Suporte',
        url: `${fake.url}/`,
        instance: 'acme-sales',
      });
      const { target } = await t.app.get(GatewayConfigsService).resolveTarget(owner.id, created.id);
      expect(target).toMatchObject({ apiKey: API_KEY });
    });

    it('accepts the maximum lengths', async () => {
      fake.addInstance('i'.repeat(100), { apiKey: API_KEY });
      const url = `${fake.url}/${'p'.repeat(500 - fake.url.length - 1)}`;
      const created = await create(owner, {
        name: 'n'.repeat(100),
        url,
        apiKey: 'k'.repeat(500),
        instance: 'i'.repeat(100),
      });
      expect(created.url).toHaveLength(500);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['no name', { name: undefined }, 'name=é obrigatório'],
      ['an empty name', { name: '' }, 'name=é obrigatório'],
      ['a blank name', { name: '   ' }, 'name=é obrigatório'],
      [
        'a name over 100 characters',
        { name: 'n'.repeat(101) },
        'name=deve ter no máximo 100 caracteres',
      ],
      ['a name that is not text', { name: 42 }, 'name=é obrigatório'],
      ['no url', { url: undefined }, 'url=é obrigatória'],
      ['an empty url', { url: '' }, 'url=é obrigatória'],
      [
        'a url that is not a URL',
        { url: 'gateway sem protocolo' },
        'url=deve ser uma URL http:// ou https:// válida',
      ],
      [
        'an ftp url',
        { url: 'ftp://gw.example.com' },
        'url=deve ser uma URL http:// ou https:// válida',
      ],
      [
        'a url with credentials',
        { url: 'https://user:pass@gw.example.com' },
        'url=deve ser uma URL http:// ou https:// válida',
      ],
      [
        'a url with a query',
        { url: 'https://gw.example.com/?token=1' },
        'url=não pode conter parâmetros',
      ],
      [
        'a url over 500 characters',
        { url: `https://gw.example.com/${'p'.repeat(480)}` },
        'url=deve ter no máximo 500 caracteres',
      ],
      [
        'a cloud metadata url',
        { url: 'http://169.254.169.254/latest' },
        'url=aponta para um endereço de rede não permitido',
      ],
      [
        'a link-local IPv6 url',
        { url: 'http://[fe80::1]:8080' },
        'url=aponta para um endereço de rede não permitido',
      ],
      [
        'a url whose host does not resolve',
        { url: 'https://gateway.invalid' },
        'url=tem um host que não foi encontrado',
      ],
      ['no apiKey', { apiKey: undefined }, 'apiKey=é obrigatória'],
      ['an empty apiKey', { apiKey: '' }, 'apiKey=é obrigatória'],
      [
        'an apiKey over 500 characters',
        { apiKey: 'k'.repeat(501) },
        'apiKey=deve ter no máximo 500 caracteres',
      ],
      ['an apiKey that is not text', { apiKey: 123456 }, 'apiKey=é obrigatória'],
      ['no instance', { instance: undefined }, 'instance=é obrigatória'],
      ['a blank instance', { instance: '  ' }, 'instance=é obrigatória'],
      [
        'an instance over 100 characters',
        { instance: 'i'.repeat(101) },
        'instance=deve ter no máximo 100 caracteres',
      ],
      ['an unknown field', { instanceId: 'x' }, 'instanceId=campo desconhecido'],
    ])('refuses %s with 400 and stores nothing', async (_label, change, expected) => {
      const before = await countRows('gateway_configs');
      const response = await owner.post(PATH, { ...validBody(), ...change });
      const message = expectErrorBody(response, 400, PATH);
      expect(message).toContain(expected);
      expect(message).not.toContain(API_KEY);
      expect(await countRows('gateway_configs')).toBe(before);
    });

    it('requires a company token', async () => {
      const before = await countRows('gateway_configs');
      expectErrorBody(await t.http.post(PATH).send(validBody()), 401, PATH);
      expect(await countRows('gateway_configs')).toBe(before);
    });
  });

  describe('GET /api/gateway-configs', () => {
    it("lists the company's own configurations, newest first, without keys", async () => {
      const company = await TestCompany.register(t.http);
      const first = await create(company, { ...validBody(), name: 'Primeiro' });
      const second = await create(company, { ...validBody(), name: 'Segundo' });
      await create(stranger, { ...validBody(), name: 'De outra empresa' });
      const response = await company.get(PATH).expect(200);
      expect(response.body).toEqual([second, first]);
    });

    it('answers an empty array for a company without configurations', async () => {
      const company = await TestCompany.register(t.http);
      expect((await company.get(PATH).expect(200)).body).toEqual([]);
    });
  });

  describe('GET /api/gateway-configs/{id}', () => {
    it('returns one configuration', async () => {
      const created = await create();
      expect((await owner.get(`${PATH}/${created.id}`).expect(200)).body).toEqual(created);
    });

    it.each([['abc'], ['0'], ['-1'], ['99999999999']])('refuses the id %s with 400', async (id) => {
      expectErrorBody(await owner.get(`${PATH}/${id}`), 400);
    });
  });

  describe('PUT /api/gateway-configs/{id}', () => {
    it('changes only the fields sent', async () => {
      const created = await create();
      const response = await owner.put(`${PATH}/${created.id}`, { name: 'Novo nome' }).expect(200);
      expect(response.body).toEqual({
        ...created,
        name: 'Novo nome',
        updatedAt: expect.any(String),
      });
      expect(new Date(response.body.updatedAt).getTime()).toBeGreaterThanOrEqual(
        new Date(created.updatedAt).getTime(),
      );
      expect(await storedRow(created.id)).toMatchObject({
        name: 'Novo nome',
        url: fake.url,
        instance: 'acme-sales',
      });
    });

    it('re-encrypts a new API key and never returns it', async () => {
      const created = await create();
      const before = (await storedRow(created.id))?.api_key_encrypted;
      const response = await owner
        .put(`${PATH}/${created.id}`, { apiKey: 'nova-chave-123' })
        .expect(200);
      expect(Object.keys(response.body).sort()).toEqual([
        'apiVersion',
        'businessAccountId',
        'createdAt',
        'dailyLimit',
        'displayPhoneNumber',
        'eventsRefusedAt',
        'eventsRefusedReason',
        'id',
        'instance',
        'instanceState',
        'messagingLimitTier',
        'name',
        'numberCheckedAt',
        'phoneNumberId',
        'provider',
        'qualityRating',
        'reachOutLock',
        'throughputPerSecond',
        'trackDelivery',
        'updatedAt',
        'url',
        'verifiedName',
        'warmupGrowthPercent',
        'warmupStartPerDay',
        'webhookUrl',
        'webhookVerifyToken',
      ]);
      const after = (await storedRow(created.id))?.api_key_encrypted as string;
      expect(after).not.toBe(before);
      expect(after).not.toContain('nova-chave-123');
      const { target } = await t.app.get(GatewayConfigsService).resolveTarget(owner.id, created.id);
      expect(target).toMatchObject({ apiKey: 'nova-chave-123' });
    });

    it('changes url and instance together', async () => {
      const created = await create();
      const url = `${fake.url}/evolution`;
      const response = await owner
        .put(`${PATH}/${created.id}`, { url, instance: 'acme-support' })
        .expect(200);
      expect(response.body).toMatchObject({ url, instance: 'acme-support' });
    });

    it('accepts an empty body and leaves everything as it was', async () => {
      const created = await create();
      expect((await owner.put(`${PATH}/${created.id}`, {}).expect(200)).body).toEqual(created);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a null name', { name: null }, 'name=deve ser um texto'],
      ['an empty name', { name: '' }, 'name=não pode ser vazio'],
      [
        'a name over 100 characters',
        { name: 'n'.repeat(101) },
        'name=deve ter no máximo 100 caracteres',
      ],
      ['a null url', { url: null }, 'url=deve ser um texto'],
      [
        'an invalid url',
        { url: 'javascript:alert(1)' },
        'url=deve ser uma URL http:// ou https:// válida',
      ],
      [
        'a metadata url',
        { url: 'http://100.100.100.200/' },
        'url=aponta para um endereço de rede não permitido',
      ],
      ['an empty apiKey', { apiKey: '' }, 'apiKey=não pode ser vazia'],
      ['an apiKey that is not text', { apiKey: false }, 'apiKey=deve ser um texto'],
      ['an empty instance', { instance: '' }, 'instance=não pode ser vazia'],
      [
        'an instance over 100 characters',
        { instance: 'i'.repeat(101) },
        'instance=deve ter no máximo 100 caracteres',
      ],
      ['an unknown field', { companyId: 1 }, 'companyId=campo desconhecido'],
    ])('refuses %s with 400 and changes nothing', async (_label, body, expected) => {
      const created = await create();
      const before = await storedRow(created.id);
      const message = expectErrorBody(await owner.put(`${PATH}/${created.id}`, body), 400);
      expect(message).toContain(expected);
      expect(await storedRow(created.id)).toEqual(before);
    });
  });

  describe('DELETE /api/gateway-configs/{id}', () => {
    it('deletes with 204', async () => {
      const created = await create();
      const response = await owner.delete(`${PATH}/${created.id}`).expect(204);
      expect(response.text).toBe('');
      expect(await countRows('gateway_configs', 'id = $1', [created.id])).toBe(0);
      expectErrorBody(await owner.get(`${PATH}/${created.id}`), 404);
    });

    it('refuses with 400 while a registered module uses the configuration, and asks with the right ids', async () => {
      const created = await create();
      const asked: Array<[number, number]> = [];
      const registry = t.app.get(GatewayConfigUsageRegistry);
      const unregisterBusy = registry.register((companyId, configId) => {
        asked.push([companyId, configId]);
        return Promise.resolve(configId === created.id ? 'usada por uma campanha ativa' : null);
      });
      const unregisterFree = registry.register(() => Promise.resolve(null));
      try {
        const message = expectErrorBody(await owner.delete(`${PATH}/${created.id}`), 400);
        expect(message).toBe('Configuração de gateway em uso: usada por uma campanha ativa');
        expect(asked).toEqual([[owner.id, created.id]]);
        expect(await countRows('gateway_configs', 'id = $1', [created.id])).toBe(1);
      } finally {
        unregisterBusy();
        unregisterFree();
      }
      await owner.delete(`${PATH}/${created.id}`).expect(204);
    });

    it('refuses with 400, not 500, while a foreign key still points at the configuration', async () => {
      const created = await create();
      const table = `gateway_fk_probe_${process.pid}`;
      await db().query(
        `CREATE TABLE ${table} (config_id integer NOT NULL REFERENCES gateway_configs(id))`,
      );
      try {
        await db().query(`INSERT INTO ${table} (config_id) VALUES ($1)`, [created.id]);
        const message = expectErrorBody(await owner.delete(`${PATH}/${created.id}`), 400);
        expect(message).toMatch(/^Configuração de gateway em uso: ainda referenciada/);
        expect(await countRows('gateway_configs', 'id = $1', [created.id])).toBe(1);
      } finally {
        await db().query(`DROP TABLE ${table}`);
      }
    });

    it('lets a configuration go once no checker objects', async () => {
      const created = await create();
      const unregister = t.app
        .get(GatewayConfigUsageRegistry)
        .register(() => Promise.resolve(null));
      try {
        await owner.delete(`${PATH}/${created.id}`).expect(204);
      } finally {
        unregister();
      }
      expect(await countRows('gateway_configs', 'id = $1', [created.id])).toBe(0);
    });
  });

  describe('tenancy', () => {
    it.each<[string, (c: TestCompany, id: number) => ReturnType<TestCompany['get']>]>([
      ['GET', (c, id) => c.get(`${PATH}/${id}`)],
      ['PUT', (c, id) => c.put(`${PATH}/${id}`, { name: 'Roubado' })],
      ['DELETE', (c, id) => c.delete(`${PATH}/${id}`)],
      ['GET status', (c, id) => c.get(`${PATH}/${id}/status`)],
      ['DELETE restriction', (c, id) => c.delete(`${PATH}/${id}/restriction`)],
    ])(
      "answers 403 to %s on another company's configuration and changes nothing",
      async (_label, call) => {
        const created = await create();
        const before = await storedRow(created.id);
        const message = expectErrorBody(await call(stranger, created.id), 403);
        expect(message).toBe('Este recurso pertence a outra empresa');
        expect(await storedRow(created.id)).toEqual(before);
        expect(fake.requests).toHaveLength(0);
      },
    );

    it.each<[string, (c: TestCompany, id: number) => ReturnType<TestCompany['get']>]>([
      ['GET', (c, id) => c.get(`${PATH}/${id}`)],
      ['PUT', (c, id) => c.put(`${PATH}/${id}`, { name: 'X' })],
      ['DELETE', (c, id) => c.delete(`${PATH}/${id}`)],
      ['GET status', (c, id) => c.get(`${PATH}/${id}/status`)],
      ['DELETE restriction', (c, id) => c.delete(`${PATH}/${id}/restriction`)],
    ])('answers 404 to %s on a configuration that does not exist', async (_label, call) => {
      const message = expectErrorBody(await call(owner, 2_000_000_000), 404);
      expect(message).toBe('Configuração de gateway não encontrada');
    });

    it("refuses another company's configuration when resolving a target", async () => {
      const created = await create();
      await expect(
        t.app.get(GatewayConfigsService).resolveTarget(stranger.id, created.id),
      ).rejects.toMatchObject({
        kind: 'forbidden',
      });
    });
  });

  describe('GET /api/gateway-configs/{id}/status', () => {
    it.each([['open'], ['connecting'], ['close']] as const)(
      'asks the gateway with the stored key and reports %s',
      async (state) => {
        fake.setState('acme-sales', state);
        const created = await create();
        const response = await owner.get(`${PATH}/${created.id}/status`).expect(200);
        expect(response.body).toEqual({
          instance: 'acme-sales',
          state,
          checkedAt: expect.any(String),
        });
        expect(new Date(response.body.checkedAt).toISOString()).toBe(response.body.checkedAt);
        expect(fake.requests).toHaveLength(1);
        expect(fake.requests[0].path).toBe('/instance/connectionState/acme-sales');
        expect(fake.requests[0].headers.apikey).toBe(API_KEY);
      },
    );

    it('asks again on every call', async () => {
      const created = await create();
      await owner.get(`${PATH}/${created.id}/status`).expect(200);
      fake.setState('acme-sales', 'close');
      expect((await owner.get(`${PATH}/${created.id}/status`).expect(200)).body.state).toBe(
        'close',
      );
      expect(fake.requests).toHaveLength(2);
    });

    it('reports unknown when the gateway gives no state', async () => {
      fake.setState('acme-sales', null);
      const created = await create();
      expect((await owner.get(`${PATH}/${created.id}/status`).expect(200)).body.state).toBe(
        'unknown',
      );
    });

    it('answers 400 for an instance the gateway does not know', async () => {
      const created = await create(owner, { ...validBody(), instance: 'nao-existe' });
      const message = expectErrorBody(await owner.get(`${PATH}/${created.id}/status`), 400);
      expect(message).toBe('A instância "nao-existe" não existe no gateway');
    });

    it('answers 400 when the gateway refuses the key', async () => {
      const created = await create(owner, { ...validBody(), apiKey: 'chave-errada' });
      const message = expectErrorBody(await owner.get(`${PATH}/${created.id}/status`), 400);
      expect(message).toBe('Credenciais do gateway inválidas: a chave de API foi recusada');
    });

    it('answers 400 when the stored key does not open, e.g. copied from another company', async () => {
      const mine = await create();
      const theirs = await create(stranger);
      await db().query(
        `UPDATE gateway_configs SET api_key_encrypted = (SELECT api_key_encrypted FROM gateway_configs WHERE id = $2) WHERE id = $1`,
        [mine.id, theirs.id],
      );
      const message = expectErrorBody(await owner.get(`${PATH}/${mine.id}/status`), 400);
      expect(message).toBe(
        'Não foi possível ler a chave de API salva nesta configuração; informe a chave novamente',
      );
      expect(fake.requests).toHaveLength(0);
      await owner.put(`${PATH}/${mine.id}`, { apiKey: API_KEY }).expect(200);
      expect((await owner.get(`${PATH}/${mine.id}/status`).expect(200)).body.state).toBe('open');
    });

    it('answers 503 when the gateway keeps failing', async () => {
      const created = await create();
      fake.failNext(3, 500, 'read');
      const message = expectErrorBody(await owner.get(`${PATH}/${created.id}/status`), 503);
      expect(message).toMatch(/^Falha ao consultar o gateway: /);
      expect(fake.requests).toHaveLength(3);
    });

    it('answers 503 when the gateway is unreachable', async () => {
      const created = await create(owner, {
        ...validBody(),
        url: `http://127.0.0.1:${await closedPort()}`,
      });
      expectErrorBody(await owner.get(`${PATH}/${created.id}/status`), 503);
    });
  });

  describe('with OUTBOUND_DENY_PRIVATE=true', () => {
    const {
      t: denying,
      companies: [company],
    } = useE2eFixture({ env: { OUTBOUND_DENY_PRIVATE: 'true', ENCRYPTION_KEY }, companies: 1 });

    it('refuses a gateway on a loopback address with 400', async () => {
      const before = await countRows('gateway_configs');
      const response = await company.post(PATH, validBody());
      expect(expectErrorBody(response, 400)).toBe(
        '{url=aponta para um endereço de rede não permitido}',
      );
      expect(await countRows('gateway_configs')).toBe(before);
    });

    it('refuses to call a loopback gateway saved earlier', async () => {
      const created = await create(owner);
      const ownerThere = { get: (path: string) => denying.http.get(path).set(owner.auth) };
      const message = expectErrorBody(await ownerThere.get(`${PATH}/${created.id}/status`), 400);
      expect(message).toContain('Destino não permitido');
      expect(fake.requests).toHaveLength(0);
    });
  });
});
