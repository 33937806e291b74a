import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeGraphApi, MetaTemplate } from '../../support/fake-graph-api';
import { GatewayTemplatesService } from '../../../src/modules/gateway/application/gateway-templates.service';

const PATH = '/api/gateway-configs';
const TOKEN = 'EAAG-token-dos-modelos-51AB';
const NUMBER_ID = '106540352242999';
const WABA_ID = '102290129349999';

const WELCOME: MetaTemplate = {
  name: 'boas_vindas',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://x/y.jpg'] } },
    { type: 'BODY', text: 'Olá {{1}}, sua loja em {{2}} tem novidades. {{1}}, aproveite!' },
    { type: 'FOOTER', text: 'Responda SAIR para não receber mais' },
  ],
};

const ORDER: MetaTemplate = {
  name: 'pedido_enviado',
  language: 'pt_BR',
  status: 'PAUSED',
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Pedido {{numero}}' },
    { type: 'BODY', text: 'Oi {{first_name}}, o pedido {{numero}} saiu para entrega.' },
  ],
};

describe('Cloud API templates', () => {
  const graph = new FakeGraphApi();
  const {
    t,
    fake,
    companies: [owner, stranger],
  } = useE2eFixture({ servers: [graph], companies: ['Dona dos modelos', 'Outra empresa'] });

  async function createConfig(): Promise<number> {
    const response = await owner
      .post(PATH, {
        provider: 'CLOUD_API',
        name: 'Oficial',
        url: graph.url,
        phoneNumberId: NUMBER_ID,
        businessAccountId: WABA_ID,
        accessToken: TOKEN,
        appSecret: 'segredo',
      })
      .expect(201);
    return (response.body as { id: number }).id;
  }

  function addNumber(): void {
    graph.addNumber({ phoneNumberId: NUMBER_ID, businessAccountId: WABA_ID, accessToken: TOKEN });
  }

  function templateCalls(): number {
    return graph.requests.filter((r) => r.path.endsWith('/message_templates')).length;
  }

  beforeEach(() => {
    graph.reset();
    addNumber();
    graph.addTemplate(WABA_ID, WELCOME);
    graph.addTemplate(WABA_ID, ORDER);
  });

  it('reads the templates from Meta when none are stored, with their parameters counted', async () => {
    const id = await createConfig();
    const response = await owner.get(`${PATH}/${id}/templates`).expect(200);
    expect(response.body).toEqual([
      {
        name: 'boas_vindas',
        language: 'pt_BR',
        category: 'MARKETING',
        status: 'APPROVED',
        components: WELCOME.components,
        bodyParameters: 2,
        headerParameters: 0,
        headerFormat: 'IMAGE',
      },
      {
        name: 'pedido_enviado',
        language: 'pt_BR',
        category: 'UTILITY',
        status: 'PAUSED',
        components: ORDER.components,
        bodyParameters: 2,
        headerParameters: 1,
        headerFormat: 'TEXT',
      },
    ]);
    const call = graph.requests.find((r) => r.path.endsWith('/message_templates'));
    expect(call).toMatchObject({ path: `/v27.0/${WABA_ID}/message_templates`, token: TOKEN });
  });

  it('answers the stored list without calling Meta, and reads Meta again on refresh=true', async () => {
    const id = await createConfig();
    await owner.get(`${PATH}/${id}/templates`).expect(200);
    expect(templateCalls()).toBe(1);
    graph.updateTemplate(WABA_ID, 'pedido_enviado', { status: 'APPROVED' });
    const stored = await owner.get(`${PATH}/${id}/templates`).expect(200);
    expect(templateCalls()).toBe(1);
    expect((stored.body as Array<{ status: string }>)[1].status).toBe('PAUSED');
    const fresh = await owner.get(`${PATH}/${id}/templates?refresh=true`).expect(200);
    expect(templateCalls()).toBe(2);
    expect((fresh.body as Array<{ status: string }>)[1].status).toBe('APPROVED');
  });

  it("follows Meta's paging and replaces the stored list whole", async () => {
    for (let i = 0; i < 5; i++) {
      graph.addTemplate(WABA_ID, { ...WELCOME, name: `promo_${i}` });
    }
    graph.setTemplatesPageSize(2);
    const id = await createConfig();
    const listed = await owner.get(`${PATH}/${id}/templates`).expect(200);
    expect(listed.body).toHaveLength(7);
    expect(templateCalls()).toBe(4);
    graph.reset();
    addNumber();
    graph.addTemplate(WABA_ID, ORDER);
    const replaced = await owner.get(`${PATH}/${id}/templates?refresh=true`).expect(200);
    expect((replaced.body as Array<{ name: string }>).map((x) => x.name)).toEqual([
      'pedido_enviado',
    ]);
    const { rows } = await db().query(
      `SELECT count(*)::int AS n FROM gateway_templates WHERE gateway_config_id = $1`,
      [id],
    );
    expect(rows[0].n).toBe(1);
  });

  it('finds one template for the other modules, reading Meta once when it is not stored', async () => {
    const id = await createConfig();
    const templates = t.app.get(GatewayTemplatesService);
    const found = await templates.find(owner.id, id, 'boas_vindas', 'pt_BR');
    expect(found).toMatchObject({ bodyParameters: 2, headerFormat: 'IMAGE' });
    expect(templateCalls()).toBe(1);
    await templates.find(owner.id, id, 'boas_vindas', 'pt_BR');
    expect(templateCalls()).toBe(1);
    expect(await templates.find(owner.id, id, 'nao_existe', 'pt_BR')).toBeNull();
    expect(templateCalls()).toBe(2);
  });

  it('says clearly when Meta refuses the token', async () => {
    const id = await createConfig();
    graph.updateNumber(NUMBER_ID, { accessToken: 'outro' });
    const message = expectErrorBody(await owner.get(`${PATH}/${id}/templates`), 400);
    expect(message).toContain('código 190');
  });

  it('answers 400 for an Evolution configuration, without calling anyone', async () => {
    fake.addInstance('acme-sales', { apiKey: 'chave', state: 'open' });
    const created = await owner
      .post(PATH, { name: 'E', url: fake.url, apiKey: 'chave', instance: 'acme-sales' })
      .expect(201);
    const message = expectErrorBody(
      await owner.get(`${PATH}/${(created.body as { id: number }).id}/templates`),
      400,
    );
    expect(message).toContain('existe só em configurações da API oficial do WhatsApp');
    expect(graph.requests).toHaveLength(0);
  });

  it('refuses a refresh that is not true or false', async () => {
    const id = await createConfig();
    const message = expectErrorBody(await owner.get(`${PATH}/${id}/templates?refresh=sim`), 400);
    expect(message).toContain('refresh=deve ser true ou false');
  });

  it("answers 403 for another company's configuration, and the service refuses it too", async () => {
    const id = await createConfig();
    expectErrorBody(await stranger.get(`${PATH}/${id}/templates?refresh=true`), 403);
    await expect(t.app.get(GatewayTemplatesService).refresh(stranger.id, id)).rejects.toMatchObject(
      { kind: 'forbidden' },
    );
    expect(templateCalls()).toBe(0);
  });
});
