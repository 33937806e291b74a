import { Metrics } from '../../../src/common/metrics/metrics';
import { phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { samplesOf, total } from '../../support/prometheus';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

const SET_ASIDE = 'campaign_service_gateway_events_set_aside_total';
/** The date company B sent in the issue: a valid JSON string PostgreSQL cannot store. */
const OUT_OF_RANGE = '-010000-01-01T00:00:00.000Z';

/**
 * One company's event that cannot be applied (it passed intake, or was stored before intake
 * refused such dates) is set aside with its reason and counted; it never stops the others.
 */
describe('a gateway event that fails when applied', () => {
  const { t, fake, restart } = useE2eFixture({
    publicBaseUrl: true,
    // One key for both processes: the second reads the configurations the first stored.
    env: { ENCRYPTION_KEY: 'poisoned-events-e2e-encryption-key' },
  });

  async function setAsideCount(event: string): Promise<number> {
    return total(samplesOf(await t.app.get(Metrics).scrape()), SET_ASIDE, { event });
  }

  it("is set aside with its reason and counted, while another company's receipt and opt-out are applied", async () => {
    const a = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const [person, replier] = phones(2, 9700);
    const sent = await startCampaign(a, configA.id, { contacts: [person] });
    await waitForCampaign(a, sent.id, (x) => x.status === 'COMPLETED');
    const { rows: contacts } = await db().query(
      `SELECT gateway_message_id FROM campaign_contacts WHERE campaign_id = $1`,
      [sent.id],
    );
    const receiptToA = (status: string): Promise<number | null> =>
      fake.emit(configA.instance, 'messages.update', {
        keyId: contacts[0].gateway_message_id,
        remoteJid: `${person.phoneNumber}@s.whatsapp.net`,
        fromMe: true,
        status,
      });
    const b = await TestCompany.register(t.http);
    const configB = await trackedConfig(b, fake);
    const before = {
      receipts: await setAsideCount('messages.update'),
      connections: await setAsideCount('connection.update'),
    };

    // Stored as the company B had it stored (200), straight into the table.
    const { rows: poisoned } = await db().query(
      `INSERT INTO gateway_events (gateway_config_id, company_id, event, payload)
       VALUES ($1, $2, 'messages.update', $3), ($1, $2, 'connection.update', $4)
       RETURNING id`,
      [
        configB.id,
        b.id,
        { data: { keyId: 'x', fromMe: true, status: 'READ' }, at: OUT_OF_RANGE },
        {
          data: { instance: configB.instance, state: 'close', statusReason: 428 },
          at: OUT_OF_RANGE,
        },
      ],
    );
    // The issue's own event, posted: refused at intake (400), or stored and then set aside.
    const posted = await fake.emit(
      configB.instance,
      'messages.update',
      { keyId: 'x', fromMe: true, status: 'READ' },
      { dateTime: new Date(OUT_OF_RANGE) },
    );
    expect([200, 400]).toContain(posted);
    const postedAndStored = posted === 200 ? 1 : 0;
    expect(await receiptToA('READ')).toBe(200);
    expect(
      await fake.emit(configA.instance, 'messages.upsert', {
        key: { remoteJid: `${replier.phoneNumber}@s.whatsapp.net`, fromMe: false, id: 'IN1' },
        message: { conversation: 'SAIR' },
        messageTimestamp: Math.floor(Date.now() / 1000),
      }),
    ).toBe(200);

    const read = await until(
      async () => (await a.get(`/api/campaigns/${sent.id}`)).body,
      (x) => x.readContacts === 1,
      5_000,
    );
    expect(read.deliveredContacts).toBe(1);
    await until(
      async () =>
        (
          await db().query(
            `SELECT 1 FROM blocked_contacts
              WHERE company_id = $1 AND phone_number = $2 AND blocked_by = 'OPT_OUT'`,
            [a.id, replier.phoneNumber],
          )
        ).rowCount,
      (n) => n === 1,
      5_000,
    );
    const setAside = await until(
      async () =>
        (
          await db().query(
            `SELECT id, event, failed_at, failure FROM gateway_events
              WHERE company_id = $1 ORDER BY id`,
            [b.id],
          )
        ).rows,
      (rows) => rows.every((row) => row.failed_at !== null),
      5_000,
    );
    expect(setAside).toHaveLength(poisoned.length + postedAndStored);
    expect(setAside.slice(0, 2).map((row) => row.id)).toEqual(poisoned.map((row) => row.id));
    for (const row of setAside) {
      expect(row.failure).toMatch(/^22008: .*out of range/);
    }
    expect(await setAsideCount('messages.update')).toBe(before.receipts + 1 + postedAndStored);
    expect(await setAsideCount('connection.update')).toBe(before.connections + 1);
    expect(await countRows('gateway_events', 'company_id = $1', [a.id])).toBe(0);

    // A new process: the set-aside events stay as they are, and new ones are applied.
    await restart();
    expect(await receiptToA('PLAYED')).toBe(200);
    await until(
      async () =>
        (
          await db().query(`SELECT played_at FROM campaign_contacts WHERE campaign_id = $1`, [
            sent.id,
          ])
        ).rows[0].played_at,
      (playedAt) => playedAt !== null,
      5_000,
    );
    const { rows: after } = await db().query(
      `SELECT id, event, failed_at, failure FROM gateway_events WHERE company_id = $1 ORDER BY id`,
      [b.id],
    );
    expect(after).toEqual(setAside);
    expect(await setAsideCount('messages.update')).toBe(0);
    expect(await setAsideCount('connection.update')).toBe(0);
  });

  it('sets aside each bad event of a batch, and applies every other event of it', async () => {
    const a = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const sent = await startCampaign(a, configA.id, { contacts: phones(20, 9750) });
    await waitForCampaign(a, sent.id, (x) => x.status === 'COMPLETED');
    const { rows: keys } = await db().query(
      `SELECT gateway_message_id AS key FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [sent.id],
    );
    const b = await TestCompany.register(t.http);
    const configB = await trackedConfig(b, fake);
    const bad = (at: string) => ({ data: { keyId: 'x', fromMe: true, status: 'READ' }, at });
    const rows = keys.map((row: { key: string }) => ({
      config: configA.id,
      company: a.id,
      payload: {
        data: { keyId: row.key, fromMe: true, status: 'READ' },
        at: new Date().toISOString(),
      },
    }));
    // Two bad events among twenty good ones, stored in one statement: claimed as one batch.
    rows.splice(5, 0, { config: configB.id, company: b.id, payload: bad(OUT_OF_RANGE) });
    rows.splice(15, 0, { config: configB.id, company: b.id, payload: bad('not a date') });
    await db().query(
      `INSERT INTO gateway_events (gateway_config_id, company_id, event, payload)
       SELECT config, company, 'messages.update', payload
         FROM unnest($1::int[], $2::int[], $3::jsonb[]) AS e(config, company, payload)`,
      [rows.map((r) => r.config), rows.map((r) => r.company), rows.map((r) => r.payload)],
    );

    await until(
      async () => (await a.get(`/api/campaigns/${sent.id}`)).body.readContacts,
      (read) => read === 20,
      5_000,
    );
    const setAside = await until(
      async () =>
        (
          await db().query(
            `SELECT failure FROM gateway_events WHERE company_id = $1 AND failed_at IS NOT NULL
              ORDER BY id`,
            [b.id],
          )
        ).rows.map((row) => row.failure),
      (failures) => failures.length === 2,
      5_000,
    );
    expect(setAside).toEqual([
      expect.stringMatching(/^22008: .*out of range/),
      expect.stringMatching(/^22007: /),
    ]);
    expect(await countRows('gateway_events', 'company_id = $1', [a.id])).toBe(0);
  });

  it("is tried again with back-off and set aside after its tries when it keeps failing for a reason not its data, while another company's receipt and connection are applied", async () => {
    const sentBy = async (company: TestCompany, configId: number, from: number) => {
      const campaign = await startCampaign(company, configId, { contacts: phones(1, from) });
      await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
      const { rows } = await db().query(
        `SELECT id, gateway_message_id AS key FROM campaign_contacts WHERE campaign_id = $1`,
        [campaign.id],
      );
      return { campaignId: campaign.id, contactId: Number(rows[0].id), key: rows[0].key };
    };
    const a = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const sentA = await sentBy(a, configA.id, 9780);
    const b = await TestCompany.register(t.http);
    const configB = await trackedConfig(b, fake);
    const sentB = await sentBy(b, configB.id, 9790);
    const before = {
      receipts: await setAsideCount('messages.update'),
      connections: await setAsideCount('connection.update'),
    };
    // Writing B's contact or configuration fails as a lock timeout would (55P03, not class
    // 22/23) every time. DDL takes no bound parameters: the ids are integers read above.
    await db().query(`
      CREATE FUNCTION test_refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = 'lock_not_available'; END $$;
      CREATE TRIGGER refuse_b_contact BEFORE UPDATE ON campaign_contacts FOR EACH ROW
        WHEN (OLD.id = ${sentB.contactId}) EXECUTE FUNCTION test_refuse_write();
      CREATE TRIGGER refuse_b_config BEFORE UPDATE ON gateway_configs FOR EACH ROW
        WHEN (OLD.id = ${Number(configB.id)}) EXECUTE FUNCTION test_refuse_write();`);
    try {
      const receipt = (config: { instance: string }, key: string) =>
        fake.emit(config.instance, 'messages.update', { keyId: key, fromMe: true, status: 'READ' });
      const closed = (config: { instance: string }) =>
        fake.emit(config.instance, 'connection.update', {
          instance: config.instance,
          state: 'close',
          statusReason: 428,
        });
      expect(await receipt(configB, sentB.key)).toBe(200);
      expect(await closed(configB)).toBe(200);
      expect(await receipt(configA, sentA.key)).toBe(200);
      expect(await closed(configA)).toBe(200);

      await until(
        async () => (await a.get(`/api/campaigns/${sentA.campaignId}`)).body.readContacts,
        (read) => read === 1,
        5_000,
      );
      await until(
        async () => (await a.get(`/api/gateway-configs/${configA.id}`)).body.instanceState,
        (state) => state === 'close',
        5_000,
      );
      const pendingB = `SELECT event, faults, failed_at, failure FROM gateway_events
                         WHERE company_id = $1 ORDER BY event`;
      // B's events are still there, tried again, not yet given up.
      const retried = (await db().query(pendingB, [b.id])).rows;
      expect(retried).toEqual([
        expect.objectContaining({ event: 'connection.update', failed_at: null }),
        expect.objectContaining({ event: 'messages.update', failed_at: null }),
      ]);

      // 1 + 2 + 4 + 8 s of back-off, then the fifth failure sets them aside.
      const setAside = await until(
        async () => (await db().query(pendingB, [b.id])).rows,
        (rows) => rows.length === 2 && rows.every((row) => row.failed_at !== null),
        40_000,
      );
      for (const row of setAside) {
        expect(row.faults).toBe(4);
        expect(row.failure).toBe('55P03: refused by the test');
      }
      expect(await setAsideCount('messages.update')).toBe(before.receipts + 1);
      expect(await setAsideCount('connection.update')).toBe(before.connections + 1);
      expect(await countRows('gateway_events', 'company_id = $1', [a.id])).toBe(0);
    } finally {
      await db().query(`DROP TRIGGER refuse_b_contact ON campaign_contacts;
                        DROP TRIGGER refuse_b_config ON gateway_configs;
                        DROP FUNCTION test_refuse_write()`);
    }
  });
});
