import { DateTime } from 'luxon';
import { connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeEvolutionApi, FakeSentMessage } from '../../support/fake-evolution-api';
import { TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';

const ZONE = 'America/Sao_Paulo';

/** Milliseconds between consecutive arrivals at the fake gateway. */
function gapsOf(messages: FakeSentMessage[]): number[] {
  const times = messages.map((m) => m.at.getTime()).sort((a, b) => a - b);
  return times.slice(1).map((time, i) => time - times[i]);
}

/** What the instance sent, in arrival order. */
function sentThrough(fake: FakeEvolutionApi, instance: string): FakeSentMessage[] {
  return fake.sent
    .filter((m) => m.instance === instance)
    .sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** The local day passes for the instance: what it counted belongs to yesterday now. */
async function dayPasses(gatewayConfigId: number, campaignId: number): Promise<void> {
  await db().query(
    `UPDATE instance_pacing SET day = day - 1, first_send_at = first_send_at - interval '1 day'
      WHERE gateway_config_id = $1`,
    [gatewayConfigId],
  );
  // Midnight came: the campaign's wait is over.
  await db().query(`UPDATE campaigns SET next_send_at = now() WHERE id = $1`, [campaignId]);
}

describe('keeping a number safe', () => {
  const {
    t,
    fake,
    companies: [company],
  } = useE2eFixture({
    // More campaigns than an hour allows one company by default: each guard has its own.
    env: { CAMPAIGN_CREATIONS_PER_HOUR: '100' },
    companies: 1,
    noRefusals: true,
  });

  async function savedGateway(limits: Record<string, unknown> = {}): Promise<{
    id: number;
    instance: string;
  }> {
    const gateway = connectedInstance(fake);
    const saved = await company
      .post('/api/gateway-configs', {
        name: 'Loja',
        url: fake.url,
        apiKey: gateway.apiKey,
        instance: gateway.instance,
        ...limits,
      })
      .expect(201);
    return { id: saved.body.id, instance: gateway.instance };
  }

  async function campaignOn(
    gatewayConfigId: number,
    overrides: Record<string, unknown>,
  ): Promise<Record<string, any>> {
    return (
      await company
        .post('/api/campaigns', {
          name: 'Segura',
          gatewayConfigId,
          message: 'Olá {PrimeiroNome}',
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
          ...overrides,
        })
        .expect(200)
    ).body;
  }

  it('paces every campaign of one instance by the pause, taking turns', async () => {
    const gateway = await savedGateway();
    // The instance rests while the three campaigns are created, so that all three compete.
    await db().query(
      `INSERT INTO instance_pacing (gateway_config_id, company_id, last_message_at)
       VALUES ($1, $2, now() + interval '1 day')`,
      [gateway.id, company.id],
    );
    const campaigns: Array<Record<string, any>> = [];
    for (const i of [0, 1, 2]) {
      campaigns.push(
        await campaignOn(gateway.id, {
          name: `Vez ${i}`,
          intervalMinSeconds: 1,
          intervalMaxSeconds: 1,
          contacts: phones(3, 100 + i * 10),
        }),
      );
    }
    await db().query(
      `UPDATE instance_pacing SET last_message_at = '-infinity' WHERE gateway_config_id = $1`,
      [gateway.id],
    );
    for (const campaign of campaigns) {
      await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    }
    const messages = sentThrough(fake, gateway.instance);
    expect(messages).toHaveLength(9);
    // Three campaigns with a 1 s pause: never two messages of the instance within 1 s.
    expect(Math.min(...gapsOf(messages))).toBeGreaterThanOrEqual(990);
    // Round robin: every three messages in a row are one of each campaign.
    const campaignOf = (number: string): number =>
      Math.floor((Number(number.slice(-3)) - 100) / 10);
    for (const start of [0, 3, 6]) {
      const turn = messages.slice(start, start + 3).map((m) => campaignOf(m.number));
      expect(new Set(turn)).toEqual(new Set([0, 1, 2]));
    }
  });

  it('makes each sender wait its own pause after the instance’s last message', async () => {
    const gateway = await savedGateway();
    const slow = await campaignOn(gateway.id, {
      name: 'Lenta',
      intervalMinSeconds: 3600,
      intervalMaxSeconds: 3600,
      contacts: phones(2, 150),
    });
    await waitForCampaign(company, slow.id, (c) => c.sentContacts === 1);
    await company.put(`/api/campaigns/${slow.id}/cancel`).expect(200);
    // A campaign with a 1 s pause sends 1 s after the slow one's message, not an hour after.
    const quick = await campaignOn(gateway.id, {
      name: 'Rápida',
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
      contacts: phones(2, 160),
    });
    await waitForCampaign(company, quick.id, (c) => c.status === 'COMPLETED', 20_000);
    const messages = sentThrough(fake, gateway.instance);
    expect(messages).toHaveLength(3);
    expect(Math.min(...gapsOf(messages))).toBeGreaterThanOrEqual(990);
  });

  it('sends a notice in its turn on the instance, never closer than the pause of its senders', async () => {
    const gateway = await savedGateway();
    const noticePhone = '11999997777';
    const long = await campaignOn(gateway.id, {
      name: 'Longa',
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
      contacts: phones(5, 700),
    });
    // Ends after its first message, while the long one still sends: its notice joins the pace.
    const short = await campaignOn(gateway.id, {
      name: 'Curta',
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
      notificationPhone: noticePhone,
      contacts: phones(1, 720),
    });
    for (const campaign of [long, short]) {
      await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    }
    const notice = async (): Promise<string | undefined> =>
      (
        await db().query(`SELECT status FROM notices WHERE dedup_key = $1`, [
          `campaign:${short.id}:completed`,
        ])
      ).rows[0]?.status;
    await until(notice, (status) => status === 'SENT');
    const messages = sentThrough(fake, gateway.instance);
    expect(messages.map((m) => m.number)).toContain(`55${noticePhone}`);
    expect(messages).toHaveLength(7);
    expect(Math.min(...gapsOf(messages))).toBeGreaterThanOrEqual(990);
    const usage = await company.get(`/api/gateway-configs/${gateway.id}/usage`).expect(200);
    expect(usage.body.messagesToday).toBe(7);
  });

  it('stops an instance at its daily limit and goes on the next day', async () => {
    const gateway = await savedGateway({ dailyLimit: 2 });
    const campaign = await campaignOn(gateway.id, { contacts: phones(4, 200) });
    const waiting = await waitForCampaign(
      company,
      campaign.id,
      (c) => c.waitingReason === 'DAILY_LIMIT',
    );
    expect(waiting).toMatchObject({ status: 'ACTIVE', sentContacts: 2 });
    const midnight = DateTime.now().setZone(ZONE).plus({ days: 1 }).startOf('day');
    expect(waiting.nextSendAt).toBe(midnight.toFormat("yyyy-MM-dd'T'HH:mm:ss"));
    expect(sentThrough(fake, gateway.instance)).toHaveLength(2);
    const usage = (await company.get(`/api/gateway-configs/${gateway.id}/usage`).expect(200)).body;
    expect(usage).toMatchObject({
      messagesToday: 2,
      dailyLimit: 2,
      limitToday: 2,
      remainingToday: 0,
      warmupLimitToday: null,
      activeSenders: { campaigns: 1, automationRuns: 0 },
      nextSlotAt: null,
    });

    await dayPasses(gateway.id, campaign.id);
    const done = await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 4, waitingReason: null });
    expect(sentThrough(fake, gateway.instance)).toHaveLength(4);
  });

  it('warms a new number up: its figure of the day grows from its first send', async () => {
    const gateway = await savedGateway({ warmupStartPerDay: 1, warmupGrowthPercent: 100 });
    const campaign = await campaignOn(gateway.id, { contacts: phones(5, 300) });
    await waitForCampaign(company, campaign.id, (c) => c.waitingReason === 'DAILY_LIMIT');
    expect(sentThrough(fake, gateway.instance)).toHaveLength(1);

    await dayPasses(gateway.id, campaign.id);
    const second = await waitForCampaign(
      company,
      campaign.id,
      (c) => c.waitingReason === 'DAILY_LIMIT' && c.sentContacts === 3,
    );
    expect(second.status).toBe('ACTIVE');
    const usage = (await company.get(`/api/gateway-configs/${gateway.id}/usage`).expect(200)).body;
    expect(usage).toMatchObject({
      warmupDay: 2,
      warmupLimitToday: 2,
      limitToday: 2,
      messagesToday: 2,
    });
  });

  it('waits outside the sending window and sends once it opens', async () => {
    const gateway = await savedGateway();
    const tomorrow = DateTime.now().setZone(ZONE).plus({ days: 1 });
    await company
      .patch(`/api/companies/${company.id}/settings`, {
        sendingWindow: { days: [tomorrow.weekday], start: '08:00', end: '09:00', timezone: ZONE },
      })
      .expect(200);
    try {
      const campaign = await campaignOn(gateway.id, { contacts: phones(2, 400) });
      const waiting = await waitForCampaign(
        company,
        campaign.id,
        (c) => c.waitingReason === 'OUTSIDE_WINDOW',
      );
      expect(waiting.nextSendAt).toBe(
        tomorrow.set({ hour: 8, minute: 0, second: 0 }).toFormat("yyyy-MM-dd'T'HH:mm:ss"),
      );
      expect(sentThrough(fake, gateway.instance)).toHaveLength(0);

      // The window opens (every day, all day) and its time comes.
      await company
        .patch(`/api/companies/${company.id}/settings`, {
          sendingWindow: {
            days: [1, 2, 3, 4, 5, 6, 7],
            start: '00:00',
            end: '23:59',
            timezone: 'Pacific/Kiritimati',
          },
        })
        .expect(200);
      await db().query(`UPDATE campaigns SET next_send_at = now() WHERE id = $1`, [campaign.id]);
      // Kiritimati is UTC+14: 00:00–23:59 there leaves one minute a day closed; avoid it.
      const kiritimati = DateTime.now().setZone('Pacific/Kiritimati');
      if (kiritimati.hour === 23 && kiritimati.minute === 59) {
        // A real span: the closed minute has to pass on the clock.
        await sleep(61_000);
      }
      await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
      expect(sentThrough(fake, gateway.instance)).toHaveLength(2);
    } finally {
      await company
        .patch(`/api/companies/${company.id}/settings`, { sendingWindow: null })
        .expect(200);
    }
  });

  it('takes a long pause every so many messages', async () => {
    const gateway = await savedGateway();
    const campaign = await campaignOn(gateway.id, {
      contacts: phones(4, 500),
      longPauseEvery: 2,
      longPauseSeconds: [2, 2],
    });
    expect(campaign).toMatchObject({ longPauseEvery: 2, longPauseSeconds: [2, 2] });
    const pausing = await waitForCampaign(
      company,
      campaign.id,
      (c) => c.waitingReason === 'LONG_PAUSE',
    );
    expect(pausing.sentContacts).toBe(2);
    await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    const gaps = gapsOf(sentThrough(fake, gateway.instance));
    expect(gaps).toHaveLength(3);
    expect(gaps[1]).toBeGreaterThanOrEqual(1990);
  });

  it.each([
    [{ longPauseEvery: 2 }, 'longPauseEvery'],
    [{ longPauseSeconds: [1, 2] }, 'longPauseSeconds'],
    [{ longPauseEvery: 2, longPauseSeconds: [5, 1] }, 'longPauseSeconds'],
    [{ longPauseEvery: 0, longPauseSeconds: [1, 2] }, 'longPauseEvery'],
    [{ longPauseEvery: 2, longPauseSeconds: [1] }, 'longPauseSeconds'],
    [{ longPauseEvery: 2, longPauseSeconds: [1, 90_000] }, 'longPauseSeconds'],
    [
      { sendingWindow: { days: [8], start: '08:00', end: '20:00', timezone: ZONE } },
      'sendingWindow.days',
    ],
    [
      { sendingWindow: { days: [1], start: '20:00', end: '08:00', timezone: ZONE } },
      'sendingWindow.end',
    ],
    [
      { sendingWindow: { days: [1], start: '08:00', end: '20:00', timezone: 'Lua/Base' } },
      'sendingWindow.timezone',
    ],
    [
      { sendingWindow: { days: [1], start: '08:00', end: '20:00', timezone: ZONE, x: 1 } },
      'sendingWindow.x',
    ],
    [{ sendingWindow: 'sempre' }, 'sendingWindow'],
  ])('refuses a campaign with %j, naming %s, and creates nothing', async (bad, field) => {
    const gateway = await savedGateway();
    const response = await company.post('/api/campaigns', {
      name: 'Ruim',
      gatewayConfigId: gateway.id,
      message: 'Oi',
      contacts: phones(1, 600),
      ...bad,
    });
    expect(expectErrorBody(response, 400)).toContain(field);
    const { rows } = await db().query(
      `SELECT count(*)::int AS n FROM campaigns WHERE gateway_config_id = $1`,
      [gateway.id],
    );
    expect(rows[0].n).toBe(0);
  });

  it.each([
    [{ dailyLimit: 0 }, 'dailyLimit'],
    [{ dailyLimit: 1.5 }, 'dailyLimit'],
    [{ warmupStartPerDay: -1 }, 'warmupStartPerDay'],
    [{ warmupGrowthPercent: 101 }, 'warmupGrowthPercent'],
    [{ dailyLimit: '100' }, 'dailyLimit'],
  ])('refuses gateway limits %j, naming %s, and changes nothing', async (bad, field) => {
    const gateway = await savedGateway({ dailyLimit: 10 });
    const response = await company.put(`/api/gateway-configs/${gateway.id}`, bad);
    expect(expectErrorBody(response, 400)).toContain(field);
    const after = (await company.get(`/api/gateway-configs/${gateway.id}`).expect(200)).body;
    expect(after).toMatchObject({
      dailyLimit: 10,
      warmupStartPerDay: null,
      warmupGrowthPercent: null,
    });
  });

  it('sets, shows and clears an instance’s limits; a warm-up grows 20 % a day unless told', async () => {
    const gateway = await savedGateway();
    const set = await company
      .put(`/api/gateway-configs/${gateway.id}`, { dailyLimit: 500, warmupStartPerDay: 30 })
      .expect(200);
    expect(set.body).toMatchObject({
      dailyLimit: 500,
      warmupStartPerDay: 30,
      warmupGrowthPercent: 20,
    });
    const cleared = await company
      .put(`/api/gateway-configs/${gateway.id}`, { dailyLimit: null, warmupStartPerDay: null })
      .expect(200);
    expect(cleared.body).toMatchObject({
      dailyLimit: null,
      warmupStartPerDay: null,
      warmupGrowthPercent: null,
    });
  });

  it('refuses a bad default window in the settings and keeps the old one', async () => {
    const response = await company.patch(`/api/companies/${company.id}/settings`, {
      sendingWindow: { days: [], start: '08:00', end: '20:00', timezone: ZONE },
    });
    expect(expectErrorBody(response, 400)).toContain('sendingWindow.days');
    const settings = (await company.get(`/api/companies/${company.id}/settings`).expect(200)).body;
    expect(settings.sendingWindow).toBeNull();
  });

  it('shows an instance’s usage to its company only', async () => {
    const gateway = await savedGateway();
    const other = await TestCompany.register(t.http, 'Outra');
    const response = await other.get(`/api/gateway-configs/${gateway.id}/usage`);
    expect([403, 404]).toContain(response.status);
    expectErrorBody(response, response.status);
  });
});
