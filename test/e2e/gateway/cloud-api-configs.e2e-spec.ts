import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeGraphApi } from '../../support/fake-graph-api';
import { TestCompany } from '../../support/test-app';

const PATH = '/api/gateway-configs';
const TOKEN = 'EAAG-token-de-acesso-do-sistema-9F3A';
const APP_SECRET = 'segredo-do-app-0c1d2e3f';
const NUMBER_ID = '106540352242922';
const WABA_ID = '102290129340398';

interface CloudConfigBody {
  id: number;
  provider: string;
  webhookUrl: string | null;
  webhookVerifyToken: string | null;
  [field: string]: unknown;
}

describe('Cloud API gateway configurations', () => {
  const graph = new FakeGraphApi();
  const {
    fake,
    companies: [owner, stranger],
  } = useE2eFixture({ servers: [graph], companies: ['Dona do número', 'Outra empresa'] });

  const validBody = (): Record<string, unknown> => ({
    provider: 'CLOUD_API',
    name: 'Vendas - API oficial',
    url: graph.url,
    phoneNumberId: NUMBER_ID,
    businessAccountId: WABA_ID,
    accessToken: TOKEN,
    appSecret: APP_SECRET,
  });

  async function create(
    company: TestCompany = owner,
    body: Record<string, unknown> = validBody(),
  ): Promise<CloudConfigBody> {
    return (await company.post(PATH, body).expect(201)).body as CloudConfigBody;
  }

  beforeEach(() => {
    graph.reset();
    graph.addNumber({
      phoneNumberId: NUMBER_ID,
      businessAccountId: WABA_ID,
      accessToken: TOKEN,
      displayPhoneNumber: '+55 11 98765-4321',
      verifiedName: 'Acme Vendas',
      qualityRating: 'GREEN',
      tier: 'TIER_1K',
      appSecret: APP_SECRET,
    });
  });

  describe('POST', () => {
    it("checks the number with Meta and answers what Meta says of it, with the webhook's URL and token", async () => {
      const body = await create();
      expect(body).toMatchObject({
        provider: 'CLOUD_API',
        name: 'Vendas - API oficial',
        url: graph.url,
        instance: NUMBER_ID,
        phoneNumberId: NUMBER_ID,
        businessAccountId: WABA_ID,
        apiVersion: 'v27.0',
        displayPhoneNumber: '+55 11 98765-4321',
        verifiedName: 'Acme Vendas',
        qualityRating: 'GREEN',
        messagingLimitTier: 'TIER_1K',
        throughputPerSecond: null,
        trackDelivery: false,
      });
      expect(body.webhookUrl).toMatch(new RegExp(`/api/gateway-events/${body.id}$`));
      expect(body.webhookVerifyToken).toMatch(/^[0-9a-f]{48}$/);
      expect(body.numberCheckedAt).toEqual(expect.any(String));
      const lookup = graph.requests.find((request) => request.method === 'GET');
      expect(lookup).toMatchObject({ path: `/v27.0/${NUMBER_ID}`, token: TOKEN });
      expect(lookup?.query.get('fields')).toBe(
        'display_phone_number,verified_name,quality_rating,messaging_limit_tier',
      );
    });

    it('seals the token and the app secret, and never answers them', async () => {
      const body = await create();
      const text = JSON.stringify([body, (await owner.get(`${PATH}/${body.id}`)).body]);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(APP_SECRET);
      const { rows } = await db().query(
        `SELECT api_key_encrypted, app_secret_encrypted, provider FROM gateway_configs WHERE id = $1`,
        [body.id],
      );
      expect(rows[0].provider).toBe('CLOUD_API');
      expect(rows[0].api_key_encrypted).toMatch(/^v1:/);
      expect(rows[0].app_secret_encrypted).toMatch(/^v1:/);
      expect(JSON.stringify(rows[0])).not.toContain(TOKEN);
      expect(JSON.stringify(rows[0])).not.toContain(APP_SECRET);
    });

    it('takes the version and the throughput given', async () => {
      const body = await create(owner, {
        ...validBody(),
        apiVersion: 'v24.0',
        throughputPerSecond: 250,
      });
      expect(body).toMatchObject({ apiVersion: 'v24.0', throughputPerSecond: 250 });
      expect(graph.requests.at(-1)?.path).toBe(`/v24.0/${NUMBER_ID}`);
    });

    it.each([
      [
        'a token Meta refuses',
        { accessToken: 'token-vencido' },
        'accessToken=foi recusado pela API do WhatsApp',
      ],
      [
        'a number Meta does not know',
        { phoneNumberId: '999999999' },
        'phoneNumberId=não foi encontrado',
      ],
    ])(
      'refuses %s with 400 naming the field, and stores nothing',
      async (_label, change, expected) => {
        const before = await countRows('gateway_configs');
        const message = expectErrorBody(
          await owner.post(PATH, { ...validBody(), ...change }),
          400,
          PATH,
        );
        expect(message).toContain(expected);
        expect(message).not.toContain(TOKEN);
        expect(await countRows('gateway_configs')).toBe(before);
      },
    );

    it('refuses a Graph API address that is not allowed (link-local) before calling it', async () => {
      const message = expectErrorBody(
        await owner.post(PATH, { ...validBody(), url: 'http://169.254.169.254' }),
        400,
      );
      expect(message).toContain('url=aponta para um endereço de rede não permitido');
      expect(graph.requests).toHaveLength(0);
    });

    it.each([
      ['no phoneNumberId', { phoneNumberId: undefined }, 'phoneNumberId=é obrigatório'],
      [
        'a phoneNumberId that is not digits',
        { phoneNumberId: 'abc' },
        'phoneNumberId=deve ser o id numérico',
      ],
      ['no businessAccountId', { businessAccountId: undefined }, 'businessAccountId=é obrigatório'],
      ['no accessToken', { accessToken: undefined }, 'accessToken=é obrigatório'],
      ['a blank accessToken', { accessToken: '  ' }, 'accessToken=é obrigatório'],
      ['no appSecret', { appSecret: undefined }, 'appSecret=é obrigatório'],
      [
        'a malformed apiVersion',
        { apiVersion: '27' },
        'apiVersion=deve ser uma versão da Graph API',
      ],
      [
        'a throughput of 0',
        { throughputPerSecond: 0 },
        'throughputPerSecond=deve ser um número inteiro de 1 a 1000',
      ],
      ['an unknown provider', { provider: 'TWILIO' }, 'provider=deve ser EVOLUTION ou CLOUD_API'],
      ['an Evolution apiKey', { apiKey: 'chave' }, 'apiKey=só se aplica a configurações EVOLUTION'],
      [
        'an Evolution instance',
        { instance: 'acme' },
        'instance=só se aplica a configurações EVOLUTION',
      ],
      [
        'delivery tracking',
        { trackDelivery: true },
        'trackDelivery=só se aplica a configurações EVOLUTION (a API oficial sempre envia os eventos pelos webhooks da Meta',
      ],
    ])('refuses %s with 400 and calls nobody', async (_label, change, expected) => {
      const before = await countRows('gateway_configs');
      const message = expectErrorBody(await owner.post(PATH, { ...validBody(), ...change }), 400);
      expect(message).toContain(expected);
      expect(await countRows('gateway_configs')).toBe(before);
      expect(graph.requests).toHaveLength(0);
    });

    it('refuses Cloud API fields on an Evolution configuration', async () => {
      fake.addInstance('acme-sales', { apiKey: 'chave-evolution', state: 'open' });
      const message = expectErrorBody(
        await owner.post(PATH, {
          name: 'Evolution',
          url: fake.url,
          apiKey: 'chave-evolution',
          instance: 'acme-sales',
          phoneNumberId: NUMBER_ID,
        }),
        400,
      );
      expect(message).toContain('phoneNumberId=só se aplica a configurações CLOUD_API');
    });
  });

  describe('an Evolution configuration', () => {
    it('answers its provider and null Cloud API fields', async () => {
      fake.addInstance('acme-sales', { apiKey: 'chave-evolution', state: 'open' });
      const body = (
        await owner
          .post(PATH, {
            name: 'E',
            url: fake.url,
            apiKey: 'chave-evolution',
            instance: 'acme-sales',
          })
          .expect(201)
      ).body as CloudConfigBody;
      expect(body).toMatchObject({
        provider: 'EVOLUTION',
        phoneNumberId: null,
        businessAccountId: null,
        webhookUrl: null,
        webhookVerifyToken: null,
      });
    });
  });

  describe('PUT', () => {
    it('checks a new token with Meta before saving it; a refused one changes nothing', async () => {
      const created = await create();
      const before = await db().query(`SELECT * FROM gateway_configs WHERE id = $1`, [created.id]);
      const message = expectErrorBody(
        await owner.put(`${PATH}/${created.id}`, { accessToken: 'outro-token' }),
        400,
      );
      expect(message).toContain('accessToken=foi recusado');
      const after = await db().query(`SELECT * FROM gateway_configs WHERE id = $1`, [created.id]);
      expect(after.rows[0]).toEqual(before.rows[0]);

      graph.updateNumber(NUMBER_ID, { accessToken: 'token-novo', qualityRating: 'YELLOW' });
      const updated = (
        await owner.put(`${PATH}/${created.id}`, { accessToken: 'token-novo' }).expect(200)
      ).body as CloudConfigBody;
      expect(updated.qualityRating).toBe('YELLOW');
      expect(JSON.stringify(updated)).not.toContain('token-novo');
    });

    it('changes the name and the throughput without asking Meta', async () => {
      const created = await create();
      graph.requests.length = 0;
      const updated = (
        await owner
          .put(`${PATH}/${created.id}`, { name: 'Novo nome', throughputPerSecond: 40 })
          .expect(200)
      ).body as CloudConfigBody;
      expect(updated).toMatchObject({ name: 'Novo nome', throughputPerSecond: 40 });
      expect(updated.webhookVerifyToken).toBe(created.webhookVerifyToken);
      expect(graph.requests).toHaveLength(0);
    });

    it.each([
      ['an Evolution apiKey', { apiKey: 'x' }, 'apiKey=só se aplica a configurações EVOLUTION'],
      [
        'delivery tracking',
        { trackDelivery: true },
        'trackDelivery=só se aplica a configurações EVOLUTION',
      ],
      ['a null token', { accessToken: null }, 'accessToken=é obrigatório'],
    ])('refuses %s with 400', async (_label, change, expected) => {
      const created = await create();
      const message = expectErrorBody(await owner.put(`${PATH}/${created.id}`, change), 400);
      expect(message).toContain(expected);
    });
  });

  describe('what only Evolution API has', () => {
    it('answers a clear 400 for the reach-out restriction', async () => {
      const created = await create();
      const message = expectErrorBody(await owner.delete(`${PATH}/${created.id}/restriction`), 400);
      expect(message).toContain('existe só em configurações do Evolution API');
    });

    it("answers the number's state from Meta's lookup as the connection status", async () => {
      const created = await create();
      const status = await owner.get(`${PATH}/${created.id}/status`).expect(200);
      expect(status.body).toMatchObject({ instance: NUMBER_ID, state: 'open' });
      graph.updateNumber(NUMBER_ID, { accessToken: 'revogado' });
      expectErrorBody(await owner.get(`${PATH}/${created.id}/status`), 400);
    });

    it('answers a clear 400 to a gateway sync: Meta shows no contacts, chats or groups', async () => {
      const created = await create();
      graph.requests.length = 0;
      const databases = await countRows('user_databases');
      const message = expectErrorBody(
        await owner.post('/api/user-databases/gateway/sync', {
          gatewayConfigId: created.id,
          name: 'Contatos do número oficial',
        }),
        400,
      );
      expect(message).toContain('só no Evolution API');
      expect(graph.requests).toHaveLength(0);
      expect(await countRows('user_databases')).toBe(databases);
    });
  });

  it("checks a campaign's Cloud API number with Meta's lookup: a revoked token is a 400", async () => {
    const created = await create();
    graph.updateNumber(NUMBER_ID, { accessToken: 'revogado' });
    const campaigns = await countRows('campaigns');
    const message = expectErrorBody(
      await owner.post('/api/campaigns', {
        name: 'Pela API oficial',
        gatewayConfigId: created.id,
        message: 'Olá',
        contacts: [{ phoneNumber: '11987650001' }],
      }),
      400,
    );
    expect(message).toContain('A conta da API oficial não pode enviar');
    expect(message).toContain('código 190');
    expect(await countRows('campaigns')).toBe(campaigns);
    expect(graph.sent).toHaveLength(0);
  });

  describe('tenancy', () => {
    it.each([
      ['GET', (c: TestCompany, id: number) => c.get(`${PATH}/${id}`)],
      ['PUT', (c: TestCompany, id: number) => c.put(`${PATH}/${id}`, { name: 'Minha' })],
      ['DELETE', (c: TestCompany, id: number) => c.delete(`${PATH}/${id}`)],
      ['GET templates', (c: TestCompany, id: number) => c.get(`${PATH}/${id}/templates`)],
    ])("answers 403 to %s on another company's Cloud API configuration", async (_label, call) => {
      const created = await create();
      graph.requests.length = 0;
      expectErrorBody(await call(stranger, created.id), 403);
      expect(graph.requests).toHaveLength(0);
      const { rows } = await db().query(`SELECT name FROM gateway_configs WHERE id = $1`, [
        created.id,
      ]);
      expect(rows[0].name).toBe('Vendas - API oficial');
    });
  });

  it('deletes a Cloud API configuration and its stored templates', async () => {
    graph.addTemplate(WABA_ID, {
      name: 'boas_vindas',
      language: 'pt_BR',
      status: 'APPROVED',
      category: 'MARKETING',
      components: [{ type: 'BODY', text: 'Olá {{1}}' }],
    });
    const created = await create();
    await owner.get(`${PATH}/${created.id}/templates`).expect(200);
    await owner.delete(`${PATH}/${created.id}`).expect(204);
    await owner.get(`${PATH}/${created.id}`).expect(404);
    const { rows } = await db().query(
      `SELECT count(*)::int AS n FROM gateway_templates WHERE gateway_config_id = $1`,
      [created.id],
    );
    expect(rows[0].n).toBe(0);
  });
});
