import { connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';

const PATH = '/api/gateway-configs/usage';

interface SavedConfig {
  id: number;
  name: string;
  instance: string;
}

describe('GET /api/gateway-configs/usage', () => {
  const {
    t,
    fake,
    companies: [owner, stranger, withoutGateway],
  } = useE2eFixture({
    companies: ['Dona de dois números', 'Outra empresa', 'Empresa sem gateway'],
    noRefusals: true,
  });

  async function savedConfig(
    company: TestCompany,
    name: string,
    limits: Record<string, unknown> = {},
  ): Promise<SavedConfig> {
    const gateway = connectedInstance(fake);
    const saved = await company
      .post('/api/gateway-configs', { name, url: fake.url, ...gateway, ...limits })
      .expect(201);
    return { id: saved.body.id, name, instance: gateway.instance };
  }

  async function campaignOn(
    company: TestCompany,
    gatewayConfigId: number,
    contacts: ReturnType<typeof phones>,
  ): Promise<number> {
    const created = await company
      .post('/api/campaigns', {
        name: 'Uso do dia',
        gatewayConfigId,
        message: 'Olá {PrimeiroNome}',
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
        contacts,
      })
      .expect(200);
    return created.body.id as number;
  }

  /** The instance sent `sent` messages today, its first two local days ago. */
  async function sentToday(company: TestCompany, config: SavedConfig, sent: number): Promise<void> {
    await db().query(
      `INSERT INTO instance_pacing (gateway_config_id, company_id, day, sent_on_day, first_send_at, last_message_at)
       VALUES ($1, $2, (now() AT TIME ZONE $4)::date, $3, now() - interval '2 days', now() - interval '1 minute')`,
      [config.id, company.id, sent, t.config.appTimezone],
    );
  }

  async function usageOf(company: TestCompany, config: SavedConfig): Promise<unknown> {
    const single = await company.get(`/api/gateway-configs/${config.id}/usage`).expect(200);
    return {
      gatewayConfigId: config.id,
      name: config.name,
      instance: config.instance,
      ...single.body,
    };
  }

  it("lists the day of each of the company's configurations, by id, as its own usage answers it", async () => {
    const sales = await savedConfig(owner, 'Vendas', { dailyLimit: 10 });
    const support = await savedConfig(owner, 'Suporte', {
      dailyLimit: 5,
      warmupStartPerDay: 50,
      warmupGrowthPercent: 20,
    });
    const foreign = await savedConfig(stranger, 'De outra empresa');
    await sentToday(owner, support, 5);
    await sentToday(stranger, foreign, 9);
    const sent = await campaignOn(owner, sales.id, phones(2, 500));
    const waiting = await campaignOn(owner, support.id, phones(1, 510));
    await waitForCampaign(owner, sent, (c) => c.status === 'COMPLETED');
    await waitForCampaign(owner, waiting, (c) => c.waitingReason === 'DAILY_LIMIT');
    expect(fake.sent.filter((m) => m.instance === sales.instance)).toHaveLength(2);
    expect(fake.sent.filter((m) => m.instance === support.instance)).toHaveLength(0);

    const usage = (await owner.get(PATH).expect(200)).body as Array<Record<string, unknown>>;

    expect(usage).toEqual([await usageOf(owner, sales), await usageOf(owner, support)]);
    expect(usage[0]).toMatchObject({
      gatewayConfigId: sales.id,
      name: 'Vendas',
      messagesToday: 2,
      limitToday: 10,
      remainingToday: 8,
      warmupDay: null,
      recipientCap: null,
      recipientsLast24h: null,
      activeSenders: { campaigns: 0, automationRuns: 0 },
    });
    expect(usage[1]).toMatchObject({
      gatewayConfigId: support.id,
      name: 'Suporte',
      messagesToday: 5,
      warmupDay: 3,
      warmupLimitToday: 72,
      limitToday: 5,
      remainingToday: 0,
      activeSenders: { campaigns: 1, automationRuns: 0 },
    });
  });

  it("never lists another company's configuration", async () => {
    const own = await savedConfig(stranger, 'Só desta empresa');
    await savedConfig(owner, 'Da dona');

    const usage = (await stranger.get(PATH).expect(200)).body as Array<Record<string, unknown>>;

    const { rows } = await db().query(
      `SELECT id FROM gateway_configs WHERE company_id = $1 ORDER BY id`,
      [stranger.id],
    );
    expect(usage.map((item) => item.gatewayConfigId)).toEqual(rows.map((row) => row.id));
    expect(usage.at(-1)).toEqual(await usageOf(stranger, own));
  });

  it('answers an empty list to a company without a configuration', async () => {
    expect((await withoutGateway.get(PATH).expect(200)).body).toEqual([]);
  });

  it('requires a company token', async () => {
    const message = expectErrorBody(await t.http.get(PATH), 401, PATH);
    expect(message).toBe('Token de acesso inválido ou ausente');
  });
});
