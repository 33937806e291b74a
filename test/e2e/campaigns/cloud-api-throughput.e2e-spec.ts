import { phones, waitForCampaign } from '../../support/campaigns';
import { CLOUD_WABA_ID, cloudApiConfig } from '../../support/cloud-api-configs';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { FakeGraphApi, MetaTemplate } from '../../support/fake-graph-api';
import { until } from '../../support/waiting';

const GREETING: MetaTemplate = {
  name: 'saudacao_rapida',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Oi {{1}}' }],
};

interface ContactRow {
  id: string;
  phone_number: string;
  status: string;
  retry_count: number;
  gateway_message_id: string | null;
}

async function contactRows(campaignId: number): Promise<ContactRow[]> {
  const { rows } = await db().query<ContactRow>(
    `SELECT id::text, phone_number, status, retry_count, gateway_message_id
       FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

/** The people a number's turns counted in its tier's rolling 24 h. */
async function recipientsCounted(gatewayConfigId: number): Promise<number> {
  const { rows } = await db().query<{ n: number }>(
    `SELECT coalesce(sum(recipients), 0)::int AS n FROM instance_recipients WHERE gateway_config_id = $1`,
    [gatewayConfigId],
  );
  return rows[0].n;
}

/**
 * Meta's limits instead of Baileys' pacing: a Cloud API number with no pause set sends at its
 * throughput (contacts taken and recorded in batches, sent concurrently), within its tier's
 * unique people in 24 h, resting when Meta says it sends too fast; a pause a person set is kept.
 */
describe('Cloud API numbers paced by their throughput', () => {
  const graph = new FakeGraphApi();
  const {
    companies: [owner],
  } = useE2eFixture({
    servers: [graph],
    companies: ['Loja de alto volume'],
    noRefusals: true,
    resetFake: true,
  });

  beforeEach(() => {
    graph.reset();
    graph.addTemplate(CLOUD_WABA_ID, { ...GREETING });
  });

  function greetingCampaign(
    gatewayConfigId: number,
    contacts: Array<{ phoneNumber: string; name: string }>,
    overrides: Record<string, unknown> = {},
  ): Promise<{ id: number; minInterval: number; maxInterval: number }> {
    const template = { name: GREETING.name, language: 'pt_BR', bodyParameters: ['{PrimeiroNome}'] };
    return owner
      .post('/api/campaigns', { name: 'Aviso', gatewayConfigId, template, contacts, ...overrides })
      .expect(200)
      .then((response) => response.body);
  }

  it('sends a campaign without pauses at the throughput: every contact once, with its own parameters', async () => {
    const configId = await cloudApiConfig(owner, graph);
    const contacts = phones(240, 7_000);
    const created = await greetingCampaign(configId, contacts);
    expect([created.minInterval, created.maxInterval]).toEqual([0, 0]);

    const done = await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    expect(done.sentContacts).toBe(240);
    const rows = await contactRows(created.id);
    expect(rows.every((row) => row.status === 'SENT' && row.retry_count === 1)).toBe(true);
    const sentTo = graph.sent.map((message) => message.to);
    expect(new Set(sentTo).size).toBe(240);
    expect(sentTo).toHaveLength(240);
    const wamidOf = new Map(graph.sent.map((message) => [message.callbackData, message.wamid]));
    expect(rows.every((row) => wamidOf.get(row.id) === row.gateway_message_id)).toBe(true);
    const first = graph.sent.find((message) => message.to === contacts[0].phoneNumber);
    expect(JSON.stringify(first?.body)).toContain('"text":"Contato"');
    expect(await recipientsCounted(configId)).toBe(240);
  });

  it('keeps the pause a person set: one message at a time, never closer than it', async () => {
    const configId = await cloudApiConfig(owner, graph);
    const created = await greetingCampaign(configId, phones(3, 7_300), {
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
    });
    expect([created.minInterval, created.maxInterval]).toEqual([1, 1]);
    await waitForCampaign(owner, created.id, (c) => c.status === 'COMPLETED');
    const times = graph.sent.map((message) => message.at.getTime()).sort((a, b) => a - b);
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i += 1) {
      expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(950);
    }
  });

  it("waits when the number's tier is reached, the rest PENDING until the window frees", async () => {
    const configId = await cloudApiConfig(owner, graph);
    await db().query(`UPDATE gateway_configs SET messaging_limit_tier = 'TIER_250' WHERE id = $1`, [
      configId,
    ]);
    // 246 people reached in the last hours: room for 4 more.
    await db().query(
      `INSERT INTO instance_recipients (gateway_config_id, bucket_start, recipients)
       VALUES ($1, date_bin('10 minutes', now() - interval '3 hours', timestamptz '2000-01-01'), 246)`,
      [configId],
    );
    const created = await greetingCampaign(configId, phones(10, 7_400));

    const waiting = await waitForCampaign(
      owner,
      created.id,
      (c) => c.waitingReason === 'DAILY_LIMIT' && c.sentContacts === 4,
    );
    // The 3-hour-old bucket leaves the 24 h window (bucket counted whole) in about 21 h.
    const { rows: next } = await db().query<{ hours: number }>(
      `SELECT (extract(epoch FROM next_send_at - now()) / 3600)::float AS hours FROM campaigns WHERE id = $1`,
      [created.id],
    );
    expect(next[0].hours).toBeGreaterThan(20.8);
    expect(next[0].hours).toBeLessThan(21.2);
    expect(waiting.status).toBe('ACTIVE');
    const statuses = (await contactRows(created.id)).map((row) => row.status);
    expect(statuses.filter((s) => s === 'SENT')).toHaveLength(4);
    expect(statuses.filter((s) => s === 'PENDING')).toHaveLength(6);
    expect(graph.sent).toHaveLength(4);
    expect(await recipientsCounted(configId)).toBe(250);
    const usage = (await owner.get(`/api/gateway-configs/${configId}/usage`).expect(200)).body;
    expect(usage).toMatchObject({ recipientCap: 250, recipientsLast24h: 250, messagesToday: 4 });
  });

  it.each([
    ['at the throughput', {}],
    ['one at a time, with a pause set', { intervalMinSeconds: 0, intervalMaxSeconds: 1 }],
  ])(
    'rests the whole number when Meta says it sends too fast (%s), the contact untouched',
    async (_path, pauses) => {
      const configId = await cloudApiConfig(owner, graph);
      const first = await greetingCampaign(configId, phones(1, 7_500));
      await waitForCampaign(owner, first.id, (c) => c.status === 'COMPLETED');
      graph.failNextSendWithCode(130429);
      const created = await greetingCampaign(configId, phones(5, 7_600), pauses);

      // Nobody holds the number, yet nobody may send through it for a few seconds.
      const rested = await until(
        async () =>
          (
            await db().query(
              `SELECT extract(epoch FROM held_until - now())::float AS "restSeconds"
               FROM instance_pacing WHERE gateway_config_id = $1 AND held_by IS NULL`,
              [configId],
            )
          ).rows[0],
        (row) => row?.restSeconds > 0,
        20_000,
        'the number resting after the throttle',
      );
      expect(rested.restSeconds).toBeLessThanOrEqual(6);
      const throttled = (await contactRows(created.id))[0];
      expect(throttled.status).toBe('PENDING');
      expect(throttled.retry_count).toBe(0);
      expect(graph.sent).toHaveLength(1);

      const done = await waitForCampaign(
        owner,
        created.id,
        (c) => c.status === 'COMPLETED',
        30_000,
      );
      expect(done.sentContacts).toBe(5);
      expect(graph.sent).toHaveLength(6);
    },
  );
});
