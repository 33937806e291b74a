import { connectedConfig, phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import type { FakeEvolutionApi, FakeSentMessage } from '../../support/fake-evolution-api';
import type { TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';

/** How much shorter than the pause a gap may look at the fake (see instance-pacing-workers). */
const CLOCK_TOLERANCE_MS = 50;

/** The phone a message went to, as the contact's number (the fake records the JID's digits). */
function phoneOf(message: FakeSentMessage): string {
  return message.number.replace(/\D/g, '');
}

function sentThrough(fake: FakeEvolutionApi, instance: string): FakeSentMessage[] {
  return fake.sent
    .filter((m) => m.instance === instance)
    .sort((a, b) => a.at.getTime() - b.at.getTime());
}

async function threeSenders(
  company: TestCompany,
  fake: FakeEvolutionApi,
): Promise<Array<{ id: number; instance: string }>> {
  const configs = [];
  for (let i = 0; i < 3; i += 1) {
    const config = await connectedConfig(company, fake);
    configs.push({ id: config.id, instance: config.gw.instance });
  }
  return configs;
}

function poolBody(
  configIds: number[],
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: 'Campanha em pool',
    message: 'Olá {PrimeiroNome}',
    gatewayConfigIds: configIds,
    intervalMinSeconds: 0,
    intervalMaxSeconds: 0,
    ...overrides,
  };
}

describe('a campaign on a pool of senders', () => {
  const {
    t,
    fake,
    pool,
    companies: [company, other],
  } = useE2eFixture({
    env: { CAMPAIGN_CREATIONS_PER_HOUR: '100' },
    companies: 2,
    noRefusals: true,
    resetFake: true,
  });

  it('reaches every phone exactly once, spread over its three numbers, each contact on the number that sent it', async () => {
    const senders = await threeSenders(company, fake);
    const contacts = phones(300, 1000);
    const created = await createPool(senders, { contacts });
    expect(created.gatewayConfig.id).toBe(senders[0].id);
    expect(created.senders.map((s: { gatewayConfigId: number }) => s.gatewayConfigId)).toEqual(
      senders.map((s) => s.id),
    );
    expect(created.totalContacts).toBe(300);

    const done = await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
    expect(done.sentContacts).toBe(300);
    expect(done.failedContacts).toBe(0);
    const sentPhones = fake.sent.map(phoneOf);
    expect(sentPhones).toHaveLength(300);
    expect(new Set(sentPhones)).toEqual(new Set(contacts.map((c) => c.phoneNumber)));
    for (const sender of senders) {
      expect(sentThrough(fake, sender.instance)).toHaveLength(100);
    }
    expect(done.senders).toEqual(
      senders.map((s) => ({
        gatewayConfigId: s.id,
        instance: s.instance,
        state: 'DONE',
        lostReason: null,
        sentContacts: 100,
        failedContacts: 0,
        pendingContacts: 0,
      })),
    );

    const listed = [];
    for (let page = 0; page < 3; page += 1) {
      const response = await company
        .get(`/api/campaigns/${created.id}/contacts?page=${page}&size=100`)
        .expect(200);
      listed.push(
        ...(response.body as Array<{ phoneNumber: string; sender: { instance: string } }>),
      );
    }
    const instanceOfPhone = new Map(fake.sent.map((m) => [phoneOf(m), m.instance]));
    expect(listed).toHaveLength(300);
    for (const contact of listed as Array<{
      phoneNumber: string;
      sender: { instance: string };
    }>) {
      expect(contact.sender.instance).toBe(instanceOfPhone.get(contact.phoneNumber));
    }
  });

  it('tells its progress and completion once, as the pool, and never as one of its senders', async () => {
    const senders = await threeSenders(company, fake);
    const created = await createPool(senders, { contacts: phones(30, 2000) });
    await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
    const events = await pool.query<{ event_type: string; campaign_id: number; payload: any }>(
      `SELECT event_type, campaign_id, payload FROM outbox_events
        WHERE company_id = $1 AND created_at > now() - interval '5 minutes' ORDER BY id`,
      [company.id],
    );
    const ofPool = events.rows.filter((e) => e.payload.campaignId === created.id);
    expect(ofPool.map((e) => e.event_type)).toEqual([
      'campaign.started',
      ...Array.from({ length: 10 }, () => 'campaign.progress'),
      'campaign.completed',
    ]);
    expect(ofPool[ofPool.length - 1].payload.stats).toMatchObject({ total: 30, sent: 30 });
    const senderRows = await pool.query<{ id: number }>(
      `SELECT id FROM campaigns WHERE pool_id = $1 AND id <> $1`,
      [created.id],
    );
    const senderIds = new Set(senderRows.rows.map((r) => r.id));
    expect(senderIds.size).toBe(3);
    expect(events.rows.filter((e) => senderIds.has(e.payload.campaignId))).toEqual([]);
  });

  it('sends on every number at once, each one never faster than its pause', async () => {
    const senders = await threeSenders(company, fake);
    const created = await createPool(senders, {
      contacts: phones(9, 3000),
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
    });
    await waitForCampaign(company, created.id, (c) => c.status === 'COMPLETED');
    const firsts = senders.map((s) => sentThrough(fake, s.instance)[0].at.getTime());
    const seconds = senders.map((s) => sentThrough(fake, s.instance)[1].at.getTime());
    // All three numbers had sent their first message before any sent its second.
    expect(Math.max(...firsts)).toBeLessThan(Math.min(...seconds));
    for (const sender of senders) {
      const times = sentThrough(fake, sender.instance).map((m) => m.at.getTime());
      expect(times).toHaveLength(3);
      for (let i = 1; i < times.length; i += 1) {
        expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(1000 - CLOCK_TOLERANCE_MS);
      }
    }
  });

  it('keeps a person on the number that sent them before, whatever the order of the pool', async () => {
    const senders = await threeSenders(company, fake);
    const first = await createPool(senders, { contacts: phones(12, 4000) });
    await waitForCampaign(company, first.id, (c) => c.status === 'COMPLETED');
    const before = new Map(fake.sent.map((m) => [phoneOf(m), m.instance]));
    // The SYSTEM-contacts feed records who sent to whom about a second after the sends.
    await until(
      async () =>
        (
          await pool.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM contact_senders
              WHERE company_id = $1 AND phone_key = ANY (SELECT phone_match_key(p) FROM unnest($2::text[]) p)`,
            [company.id, [...before.keys()]],
          )
        ).rows[0].n,
      (n) => n === 12,
      10_000,
      'the senders recorded',
    );
    fake.sent.length = 0;
    const second = await createPool([...senders].reverse(), {
      contacts: [...phones(12, 4000), ...phones(6, 5000)],
    });
    await waitForCampaign(company, second.id, (c) => c.status === 'COMPLETED');
    for (const message of fake.sent) {
      const earlier = before.get(phoneOf(message));
      if (earlier) {
        expect(message.instance).toBe(earlier);
      }
    }
    expect(fake.sent).toHaveLength(18);
  });

  it('pauses, resumes and cancels with its senders', async () => {
    const senders = await threeSenders(company, fake);
    const created = await createPool(senders, {
      contacts: phones(30, 6000),
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
    });
    const paused = await company.put(`/api/campaigns/${created.id}/pause`).expect(200);
    expect(paused.body.status).toBe('PAUSED');
    expect(paused.body.senders.map((s: { state: string }) => s.state)).toEqual([
      'PAUSED',
      'PAUSED',
      'PAUSED',
    ]);
    // What a sender had begun before the pause may still arrive; nothing after it.
    const atPause = fake.sent.length;
    await sleep(1_500);
    const sentWhilePaused = fake.sent.length;
    expect(sentWhilePaused).toBeLessThanOrEqual(atPause + 3);
    await sleep(1_500);
    expect(fake.sent.length).toBe(sentWhilePaused);
    await company.put(`/api/campaigns/${created.id}/resume`).expect(200);
    await until(
      () => Promise.resolve(fake.sent.length),
      (n) => n >= sentWhilePaused + 3,
      20_000,
      'sends after the resume',
    );
    const cancelled = await company.put(`/api/campaigns/${created.id}/cancel`).expect(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const statuses = await pool.query<{ status: string }>(
      `SELECT status FROM campaigns WHERE pool_id = $1 ORDER BY id`,
      [created.id],
    );
    expect(statuses.rows.map((r) => r.status)).toEqual([
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
      'CANCELLED',
    ]);
  });

  it('keeps its senders out of the campaign API', async () => {
    const senders = await threeSenders(company, fake);
    const created = await createPool(senders, { contacts: phones(3, 7000) });
    const rows = await pool.query<{ id: number }>(
      `SELECT id FROM campaigns WHERE pool_id = $1 AND id <> $1`,
      [created.id],
    );
    for (const { id } of rows.rows) {
      expectErrorBody(await company.get(`/api/campaigns/${id}`), 404);
      expectErrorBody(await company.put(`/api/campaigns/${id}/pause`), 404);
    }
    const listed = await company.get('/api/campaigns').expect(200);
    const ids = (listed.body as Array<{ id: number }>).map((c) => c.id);
    expect(ids).toContain(created.id);
    expect(ids.filter((id) => rows.rows.some((r) => r.id === id))).toEqual([]);
  });

  it("refuses another company's configuration in the pool, creating nothing", async () => {
    const own = await connectedConfig(company, fake);
    const foreign = await connectedConfig(other, fake);
    const before = await countCampaigns(company.id);
    const response = await company.post(
      '/api/campaigns',
      poolBody([own.id, foreign.id], { contacts: phones(3, 8000) }),
    );
    expectErrorBody(response, 403);
    expect(await countCampaigns(company.id)).toBe(before);
    expect(fake.sent).toEqual([]);
  });

  describe('bad input is a 400 naming the field, and creates nothing', () => {
    const cases: Array<[string, (ids: number[]) => unknown, RegExp]> = [
      ['an empty list', () => [], /gatewayConfigIds/],
      ['a configuration twice', (ids) => [ids[0], ids[0]], /gatewayConfigIds/],
      [
        '21 configurations',
        (ids) => Array.from({ length: 21 }, (_v, i) => ids[0] + i),
        /gatewayConfigIds/,
      ],
      ['an unknown configuration', (ids) => [ids[0], 2_000_000_000], /gatewayConfigIds\[1\]/],
      ['a list of words', () => ['um', 'dois'], /gatewayConfigIds/],
      ['not a list', () => 7, /gatewayConfigIds/],
      // No pool, and no other way to the gateway either.
      ['null', () => null, /gatewayUrl=/],
    ];
    it.each(cases)('%s', async (_name, ids, field) => {
      const own = await connectedConfig(company, fake);
      const before = await countCampaigns(company.id);
      const response = await company.post(
        '/api/campaigns',
        poolBody([], { gatewayConfigIds: ids([own.id]), contacts: phones(3, 9000) }),
      );
      expect(expectErrorBody(response, 400)).toMatch(field);
      expect(await countCampaigns(company.id)).toBe(before);
    });

    it('a pool together with gatewayConfigId', async () => {
      const own = await connectedConfig(company, fake);
      const response = await company.post(
        '/api/campaigns',
        poolBody([own.id], { gatewayConfigId: own.id, contacts: phones(3, 9100) }),
      );
      expect(expectErrorBody(response, 400)).toMatch(/gatewayConfigIds/);
    });
  });

  /** A pool campaign of the company's configurations `senders`, created (200). */
  async function createPool(
    senders: Array<{ id: number }>,
    overrides: Record<string, unknown>,
  ): Promise<Record<string, any>> {
    const created = await company
      .post(
        '/api/campaigns',
        poolBody(
          senders.map((s) => s.id),
          overrides,
        ),
      )
      .expect(200);
    return created.body as Record<string, any>;
  }

  async function countCampaigns(companyId: number): Promise<number> {
    const rows = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM campaigns WHERE company_id = $1`,
      [companyId],
    );
    return rows.rows[0].n;
  }

  void t;
});
