import { campaignBody, connectedConfig, phones, waitForCampaign } from '../../support/campaigns';
import { CLOUD_WABA_ID, cloudApiConfig } from '../../support/cloud-api-configs';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeGraphApi, MetaTemplate } from '../../support/fake-graph-api';
import { TestCompany } from '../../support/test-app';

const WABA_ID = CLOUD_WABA_ID;

const OFFER: MetaTemplate = {
  name: 'oferta_do_mes',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [
    { type: 'HEADER', format: 'IMAGE' },
    { type: 'BODY', text: 'Olá {{1}}! Para {{2}}: {{3}}' },
  ],
};
const GREETING: MetaTemplate = {
  name: 'saudacao',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Oi {{1}}' }],
};
const PAUSED: MetaTemplate = { ...GREETING, name: 'pausado', status: 'PAUSED' };
const BANNER = { mediaType: 'image', url: 'https://cdn.example.com/oferta.png' };

interface ContactRow {
  id: string;
  phone_number: string;
  status: string;
  failure_kind: string | null;
  gateway_message_id: string | null;
  retry_count: number;
}

async function contactRows(campaignId: number): Promise<ContactRow[]> {
  const { rows } = await db().query(
    `SELECT id::text, phone_number, status, failure_kind, gateway_message_id, retry_count
       FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

/** Parameters Meta got in a template message's body component. */
function bodyTextsOf(body: Record<string, unknown>): string[] {
  const components = (body.template as { components?: Array<Record<string, any>> }).components;
  const found = components?.find((component) => component.type === 'body');
  return (found?.parameters ?? []).map((parameter: { text: string }) => parameter.text);
}

/**
 * Template campaigns on the WhatsApp Cloud API, end to end against the fake Graph API: the
 * template checked against the account at creation, parameters rendered per contact, Meta's
 * callback data on every send, the 24-hour window, and what each of Meta's answers does.
 */
describe('Cloud API template campaigns', () => {
  const graph = new FakeGraphApi();
  const {
    fake,
    companies: [owner, stranger],
  } = useE2eFixture({
    servers: [graph],
    companies: ['Loja da API oficial', 'Outra loja'],
    noRefusals: true,
    resetFake: true,
  });

  /** A Cloud API configuration of `company` on a new number of the fake. */
  function cloudConfig(company: TestCompany = owner): Promise<number> {
    return cloudApiConfig(company, graph);
  }

  function templateCampaign(
    gatewayConfigId: number,
    overrides: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      name: 'Oferta oficial',
      gatewayConfigId,
      template: {
        name: OFFER.name,
        language: 'pt_BR',
        bodyParameters: ['{PrimeiroNome}', '{NomeCompleto}', '{Válido hoje|Só hoje}'],
        headerMedia: BANNER,
      },
      intervalMinSeconds: 0,
      intervalMaxSeconds: 0,
      contacts: [
        { phoneNumber: '11987650101', name: 'Maria Souza' },
        { phoneNumber: '11987650102', name: 'João Pedro Lima' },
        { phoneNumber: '11987650103', name: 'Ana' },
      ],
      ...overrides,
    };
  }

  /** A campaign of the one-parameter GREETING template to `contacts`, created. */
  async function greetingCampaign(
    gatewayConfigId: number,
    contacts: Array<{ phoneNumber: string; name: string }>,
  ): Promise<{ id: number }> {
    const template = { name: GREETING.name, language: 'pt_BR', bodyParameters: ['{PrimeiroNome}'] };
    const body = templateCampaign(gatewayConfigId, { template, contacts });
    return (await owner.post('/api/campaigns', body).expect(200)).body;
  }

  /** The usual text campaign (support/campaigns.ts) on a saved configuration. */
  function messageCampaign(
    gatewayConfigId: number,
    overrides: Record<string, unknown> = {},
  ): Record<string, unknown> {
    const inline = campaignBody(fake, { instance: '', apiKey: '' });
    const body = Object.fromEntries(
      Object.entries(inline).filter(([field]) => !field.startsWith('gateway')),
    );
    return { ...body, gatewayConfigId, ...overrides };
  }

  /** The person wrote to the number `hoursAgo` hours ago (the inbound record the window reads). */
  async function wroteIn(gatewayConfigId: number, phone: string, hoursAgo: number): Promise<void> {
    await db().query(
      `INSERT INTO contact_conversations (gateway_config_id, phone_key, company_id, last_inbound_at)
       SELECT $1, phone_match_key($2), company_id, now() - make_interval(hours => $3)
         FROM gateway_configs WHERE id = $1`,
      [gatewayConfigId, phone, hoursAgo],
    );
  }

  beforeEach(() => {
    graph.reset();
    for (const template of [OFFER, GREETING, PAUSED]) {
      graph.addTemplate(WABA_ID, { ...template });
    }
  });

  it('reaches every contact once, its parameters rendered for it, its id as callback data', async () => {
    const configId = await cloudConfig();
    const created = (await owner.post('/api/campaigns', templateCampaign(configId)).expect(200))
      .body;
    expect(created.template).toEqual({
      name: OFFER.name,
      language: 'pt_BR',
      bodyParameters: ['{PrimeiroNome}', '{NomeCompleto}', '{Válido hoje|Só hoje}'],
      headerMedia: BANNER,
    });
    const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    expect(done.sentContacts).toBe(3);
    const rows = await contactRows(created.id);
    expect(graph.sent).toHaveLength(3);
    for (const row of rows) {
      const sent = graph.sent.filter((message) => message.to === row.phone_number);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ type: 'template', callbackData: row.id });
      expect(row).toMatchObject({ status: 'SENT', gateway_message_id: sent[0].wamid });
      const header = (sent[0].body.template as any).components.find(
        (c: { type: string }) => c.type === 'header',
      );
      expect(header.parameters[0]).toEqual({ type: 'image', image: { link: BANNER.url } });
    }
    const texts = rows.map((row) =>
      bodyTextsOf(graph.sent.find((m) => m.to === row.phone_number)!.body),
    );
    expect(texts.map((t) => t.slice(0, 2))).toEqual([
      ['Maria', 'Maria Souza'],
      ['João', 'João Pedro Lima'],
      ['Ana', 'Ana'],
    ]);
    texts.forEach((t) => expect(['Válido hoje', 'Só hoje']).toContain(t[2]));
  });

  describe('refuses with 400 naming the field, creating nothing', () => {
    it.each<[string, (cloud: number, evolution: number) => Record<string, unknown>, string]>([
      [
        'a template that is not APPROVED',
        (cloud) =>
          templateCampaign(cloud, {
            template: { name: PAUSED.name, language: 'pt_BR', bodyParameters: ['x'] },
          }),
        'template.name=o modelo não está aprovado pela Meta (status PAUSED)',
      ],
      [
        'a template the account does not have',
        (cloud) => templateCampaign(cloud, { template: { name: 'nao_existe', language: 'pt_BR' } }),
        'template.name=modelo não encontrado na conta da API oficial (nome e idioma)',
      ],
      [
        'the wrong number of body parameters',
        (cloud) =>
          templateCampaign(cloud, {
            template: {
              name: OFFER.name,
              language: 'pt_BR',
              bodyParameters: ['a'],
              headerMedia: BANNER,
            },
          }),
        'template.bodyParameters=o modelo tem 3 parâmetro(s) no corpo; foram informados 1',
      ],
      [
        'header media missing',
        (cloud) =>
          templateCampaign(cloud, {
            template: { name: OFFER.name, language: 'pt_BR', bodyParameters: ['a', 'b', 'c'] },
          }),
        'template.headerMedia=é obrigatória: o cabeçalho do modelo é image',
      ],
      [
        'header media of the wrong kind',
        (cloud) =>
          templateCampaign(cloud, {
            template: {
              name: OFFER.name,
              language: 'pt_BR',
              bodyParameters: ['a', 'b', 'c'],
              headerMedia: { ...BANNER, mediaType: 'video' },
            },
          }),
        'template.headerMedia.mediaType=deve ser image: o cabeçalho do modelo é image',
      ],
      [
        'a template on an Evolution API configuration',
        (_cloud, evolution) => templateCampaign(evolution),
        'template=só pode ser usado com uma configuração da API oficial (provider CLOUD_API)',
      ],
      [
        'a poll on a Cloud API configuration',
        (cloud) => ({
          ...templateCampaign(cloud),
          template: undefined,
          pollData: { name: 'Qual dia?', options: ['Sábado', 'Domingo'], selectableCount: 1 },
        }),
        'pollData=a API oficial do WhatsApp não envia enquetes',
      ],
      [
        'a message beside the template',
        (cloud) => templateCampaign(cloud, { message: 'Olá' }),
        'message=não pode ser usado junto com template',
      ],
      [
        'a template without a language code',
        (cloud) =>
          templateCampaign(cloud, { template: { name: OFFER.name, language: 'portugues' } }),
        'template.language=deve ser um código de idioma (ex.: pt_BR)',
      ],
    ])('%s', async (_label, bodyOf, expected) => {
      const cloud = await cloudConfig();
      const evolution = (await connectedConfig(owner, fake)).id;
      const before = await countRows('campaigns');
      const message = expectErrorBody(
        await owner.post('/api/campaigns', bodyOf(cloud, evolution)),
        400,
        '/api/campaigns',
      );
      expect(message).toContain(expected);
      expect(await countRows('campaigns')).toBe(before);
      expect(graph.sent).toHaveLength(0);
    });
  });

  it('refuses another company’s Cloud API configuration (403), creating nothing', async () => {
    const configId = await cloudConfig(owner);
    const before = await countRows('campaigns');
    expectErrorBody(await stranger.post('/api/campaigns', templateCampaign(configId)), 403);
    expect(await countRows('campaigns')).toBe(before);
    const own = (await owner.post('/api/campaigns', templateCampaign(configId)).expect(200)).body;
    expectErrorBody(await stranger.get(`/api/campaigns/${own.id}`), 403);
    // Done before the next test, whose sends the fake tells apart by number only.
    await waitForCampaign(owner, own.id, (c) => c.status === 'COMPLETED');
  });

  it('checks a draft’s template at its launch, and an edit’s template against the number', async () => {
    const cloud = await cloudConfig();
    const paused = { name: PAUSED.name, language: 'pt_BR', bodyParameters: ['{PrimeiroNome}'] };
    const draft = (
      await owner
        .post('/api/campaigns', templateCampaign(cloud, { isDraft: true, template: paused }))
        .expect(200)
    ).body;
    expect(draft).toMatchObject({ status: 'DRAFT', template: { name: PAUSED.name } });
    const refused = expectErrorBody(await owner.post(`/api/campaigns/${draft.id}/launch`), 400);
    expect(refused).toContain('template.name=o modelo não está aprovado pela Meta (status PAUSED)');
    const greeting = { ...paused, name: GREETING.name };
    await owner.put(`/api/campaigns/${draft.id}`, { template: greeting }).expect(200);
    await owner.post(`/api/campaigns/${draft.id}/launch`).expect(200);
    await waitForCampaign(owner, draft.id, (c) => c.status === 'COMPLETED');
    expect(graph.sent.map((m) => (m.body.template as { name: string }).name)).toEqual([
      GREETING.name,
      GREETING.name,
      GREETING.name,
    ]);

    const evolution = (await connectedConfig(owner, fake)).id;
    const textDraft = (
      await owner.post('/api/campaigns', messageCampaign(evolution, { isDraft: true })).expect(200)
    ).body;
    const edit = { template: greeting, message: null };
    const message = expectErrorBody(await owner.put(`/api/campaigns/${textDraft.id}`, edit), 400);
    expect(message).toContain('template=só pode ser usado com uma configuração da API oficial');
    expect((await owner.get(`/api/campaigns/${textDraft.id}`)).body.template).toBeNull();
  });

  it('sends a free-form text only to people who wrote in the last 24 h; the others fail outside_window without a call', async () => {
    const configId = await cloudConfig();
    await wroteIn(configId, '5511987650201', 2);
    await wroteIn(configId, '5511987650202', 30);
    const body = messageCampaign(configId, {
      contacts: [
        { phoneNumber: '11987650201', name: 'Recente' },
        { phoneNumber: '11987650202', name: 'Antigo' },
        { phoneNumber: '11987650203', name: 'Nunca' },
      ],
    });
    const created = (await owner.post('/api/campaigns', body).expect(200)).body;
    const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 1, failedContacts: 2 });
    const rows = await contactRows(created.id);
    expect(rows.map((r) => [r.phone_number, r.status, r.failure_kind])).toEqual([
      ['5511987650201', 'SENT', null],
      ['5511987650202', 'FAILED', 'outside_window'],
      ['5511987650203', 'FAILED', 'outside_window'],
    ]);
    expect(graph.sent.map((m) => [m.to, m.type])).toEqual([['5511987650201', 'text']]);
    const calls = graph.requests.filter(
      (r) =>
        r.path.endsWith('/messages') &&
        rows.some((row) => row.phone_number === (r.body as { to?: string }).to),
    );
    expect(calls).toHaveLength(1);
  });

  it('estimates a template campaign at creation: its contacts at its category’s price', async () => {
    const configId = await cloudConfig();
    // Drafts: estimated at creation, and nothing sent to disturb the next test's fake.
    const template = { name: GREETING.name, language: 'pt_BR', bodyParameters: ['{PrimeiroNome}'] };
    const draft = (overrides: Record<string, unknown>) =>
      owner
        .post('/api/campaigns', templateCampaign(configId, { isDraft: true, ...overrides }))
        .expect(200)
        .then((response) => response.body);
    const unpriced = await draft({ template, contacts: phones(4, 7300) });
    expect(unpriced).toMatchObject({
      estimatedCost: { currency: 'USD', category: 'utility', messages: 4, amount: null },
    });

    const prices = { marketing: 0.0625, utility: 0.0068, authentication: 0.0315, service: 0 };
    await owner
      .patch(`/api/companies/${owner.id}/settings`)
      .send({ messagePrices: prices })
      .expect(200);
    const priced = await draft({});
    expect(priced.estimatedCost).toEqual({
      currency: 'USD',
      category: 'marketing',
      messages: 3,
      amount: 0.1875,
    });
    // Only creation answers it; a message campaign has none.
    expect((await owner.get(`/api/campaigns/${priced.id}`).expect(200)).body).not.toHaveProperty(
      'estimatedCost',
    );
    const evolution = (await connectedConfig(owner, fake)).id;
    const text = (
      await owner.post('/api/campaigns', messageCampaign(evolution, { isDraft: true })).expect(200)
    ).body;
    expect(text).not.toHaveProperty('estimatedCost');
    await owner.patch(`/api/companies/${owner.id}/settings`).send({ messagePrices: null });
  });

  it('serves an Evolution API configuration with the same campaign code path, without Meta', async () => {
    const { id } = await connectedConfig(owner, fake);
    const body = messageCampaign(id);
    const created = (await owner.post('/api/campaigns', body).expect(200)).body;
    const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    expect(done.sentContacts).toBe(3);
    expect(created.template).toBeNull();
    expect(graph.requests).toHaveLength(0);
  });

  it("gives each of Meta's contact answers its kind, and retries throttling without burning the contact", async () => {
    const configId = await cloudConfig();
    graph.failNextSendWithCode(131026, 400, '(#131026) Message undeliverable');
    graph.failNextSendWithCode(131047, 400, '(#131047) Re-engagement message');
    graph.failNextSendWithCode(131049, 400, '(#131049) Healthy ecosystem engagement');
    // Last, so that its retry (the contact's next call) meets no scripted error.
    graph.failNextSendWithCode(130429, 400, '(#130429) Rate limit hit');
    const created = await greetingCampaign(configId, phones(5, 300));
    const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 3 });
    const rows = await contactRows(created.id);
    expect(rows.map((r) => r.failure_kind ?? 'SENT').sort()).toEqual([
      'SENT',
      'SENT',
      'marketing_limit',
      'reengagement_required',
      'undeliverable',
    ]);
    // retry_count counts attempts made: one each, the throttled one not counted.
    expect(rows.map((r) => r.retry_count)).toEqual([1, 1, 1, 1, 1]);
    const fourth = graph.requests.filter((r) => r.path.endsWith('/messages'))[3];
    const throttled = (fourth.body as { to: string }).to;
    expect(rows.find((r) => r.phone_number === throttled)?.status).toBe('SENT');
    expect(graph.sent.filter((m) => m.to === throttled)).toHaveLength(1);
    const tries = graph.requests.filter(
      (r) => r.path.endsWith('/messages') && (r.body as { to?: string }).to === throttled,
    );
    expect(tries).toHaveLength(2);
    expect(graph.pendingScript).toHaveLength(0);
  });

  it('pauses the campaign with the reason when the account cannot send, failing no one; it resumes', async () => {
    const configId = await cloudConfig();
    graph.failNextSendWithCode(131042, 400, '(#131042) Business eligibility payment issue');
    const created = await greetingCampaign(configId, phones(2, 400));
    const paused = await waitForCampaign(owner, created.id, (c) => c.status === 'PAUSED');
    expect(paused.failedContacts).toBe(0);
    const { rows } = await db().query(`SELECT pause_reason FROM campaigns WHERE id = $1`, [
      created.id,
    ]);
    expect(rows[0].pause_reason).toContain('A conta da API oficial não pode enviar');
    expect((await contactRows(created.id)).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    expect(graph.sent).toHaveLength(0);
    await owner.put(`/api/campaigns/${created.id}/resume`).expect(200);
    const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    expect(done.sentContacts).toBe(2);
    expect(graph.sent).toHaveLength(2);
  });
});
