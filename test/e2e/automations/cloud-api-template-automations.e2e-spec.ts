import { importDatabase, runNowAndWait, welcomeAutomationBody } from '../../support/automations';
import { connectedConfig } from '../../support/campaigns';
import { CLOUD_WABA_ID, cloudApiConfig } from '../../support/cloud-api-configs';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeGraphApi } from '../../support/fake-graph-api';

const CITY_OFFER = {
  name: 'oferta_cidade',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [{ type: 'BODY', text: 'Olá {{1}}, chegamos a {{2}}!' }],
};

/**
 * An automation on a Cloud API number sends an approved template, its parameters filled from
 * each record; the template is checked against the account as a campaign's is.
 */
describe('Cloud API template automations', () => {
  const graph = new FakeGraphApi();
  const {
    fake,
    companies: [company],
  } = useE2eFixture({
    servers: [graph],
    companies: ['Loja com automações'],
    noRefusals: true,
    resetFake: true,
  });

  const template = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
    type: 'TEXT',
    template: {
      name: CITY_OFFER.name,
      language: 'pt_BR',
      bodyParameters: ['{PrimeiroNome}', '{cidade}'],
      ...overrides,
    },
  });

  beforeEach(() => {
    graph.reset();
    graph.addTemplate(CLOUD_WABA_ID, { ...CITY_OFFER });
    graph.addTemplate(CLOUD_WABA_ID, { ...CITY_OFFER, name: 'em_revisao', status: 'PENDING' });
  });

  it('sends the template to each record, its parameters from the record, the contact id as callback data', async () => {
    const configId = await cloudApiConfig(company, graph);
    const database = await importDatabase(company, [
      { telefone: '11987650501', nome: 'Maria Souza', cidade: 'Recife' },
      { telefone: '11987650502', nome: 'João Lima', cidade: 'Natal' },
    ]);
    const automation = (
      await company
        .post(
          '/api/automations',
          welcomeAutomationBody(
            database.id,
            { gatewayConfigId: configId },
            {
              messageConfig: template(),
            },
          ),
        )
        .expect(201)
    ).body;
    expect(automation.messageConfig.template).toEqual({
      name: CITY_OFFER.name,
      language: 'pt_BR',
      bodyParameters: ['{PrimeiroNome}', '{cidade}'],
      headerMedia: null,
    });
    const run = await runNowAndWait(company, automation.id);
    expect(run.status).toBe('COMPLETED');
    const sent = [...graph.sent].sort((a, b) => a.to.localeCompare(b.to));
    const parameters = sent.map((message) =>
      (message.body.template as any).components[0].parameters.map((p: { text: string }) => p.text),
    );
    expect(parameters).toEqual([
      ['Maria', 'Recife'],
      ['João', 'Natal'],
    ]);
    const { rows } = await db().query(
      `SELECT id::text, phone_number FROM campaign_contacts WHERE id::text = ANY($1)`,
      [sent.map((message) => message.callbackData)],
    );
    expect(rows.map((row: { phone_number: string }) => row.phone_number).sort()).toEqual(
      sent.map((message) => message.to),
    );
  });

  it.each<[string, (cloud: number, evolution: number) => Record<string, unknown>, string]>([
    [
      'a template that is not APPROVED',
      (cloud) => ({ gatewayConfigId: cloud, messageConfig: template({ name: 'em_revisao' }) }),
      'messageConfig.template.name=o modelo não está aprovado pela Meta (status PENDING)',
    ],
    [
      'the wrong number of body parameters',
      (cloud) => ({ gatewayConfigId: cloud, messageConfig: template({ bodyParameters: [] }) }),
      'messageConfig.template.bodyParameters=o modelo tem 2 parâmetro(s) no corpo; foram informados 0',
    ],
    [
      'a template on an Evolution API configuration',
      (_cloud, evolution) => ({ gatewayConfigId: evolution, messageConfig: template() }),
      'messageConfig.template=só pode ser usado com uma configuração da API oficial',
    ],
    [
      'a poll on a Cloud API configuration',
      (cloud) => ({
        gatewayConfigId: cloud,
        messageConfig: {
          type: 'POLL',
          pollData: { name: 'Qual dia?', options: ['Sábado', 'Domingo'], selectableCount: 1 },
        },
      }),
      'messageConfig.pollData=a API oficial do WhatsApp não envia enquetes',
    ],
    [
      'a template beside a message',
      (cloud) => ({ gatewayConfigId: cloud, messageConfig: { ...template(), message: 'Oi' } }),
      'messageConfig.template=vai com type TEXT e sem message',
    ],
  ])('refuses %s with 400 naming the field, creating nothing', async (_label, bodyOf, expected) => {
    const cloud = await cloudApiConfig(company, graph);
    const evolution = (await connectedConfig(company, fake)).id;
    const database = await importDatabase(company, [{ telefone: '11987650601', nome: 'Ana' }]);
    const before = await countRows('automations');
    const message = expectErrorBody(
      await company.post(
        '/api/automations',
        welcomeAutomationBody(database.id, {}, bodyOf(cloud, evolution)),
      ),
      400,
      '/api/automations',
    );
    expect(message).toContain(expected);
    expect(await countRows('automations')).toBe(before);
  });
});
