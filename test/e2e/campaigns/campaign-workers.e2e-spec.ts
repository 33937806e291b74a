import {
  campaignBody,
  connectedConfig,
  connectedInstance,
  phones,
  waitForCampaign,
} from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/**
 * The engine across processes: the API runs here with no workers (ROLE=api); the sending
 * happens in real service processes that are killed and started like in production.
 */
/** Uncertain sends are looked up in the gateway's store at once, and given up on soon. */
const FAST_RECONCILE = { RECONCILE_DELAYS_MS: '300,1500' };

describe('campaign workers in separate processes', () => {
  const { t, fake, startWorker } = useE2eFixture({
    role: 'api',
    noRefusals: true,
    resetFake: true,
  });

  async function contactRows(
    campaignId: number,
  ): Promise<Array<{ phone_number: string; status: string; failure_reason: string | null }>> {
    const { rows } = await db().query(
      `SELECT phone_number, status, failure_reason FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
    return rows;
  }

  it('after a kill -9 mid-campaign, every contact ends with exactly one message, or FAILED as unknown, never two', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.setResponseDelay(150);
    const contacts = phones(40, 1000);
    const c = (
      await company.post('/api/campaigns', campaignBody(fake, gw, { contacts })).expect(200)
    ).body;

    const first = await startWorker({ DISPATCH_LEASE_SECONDS: '3', ...FAST_RECONCILE });
    await fake.waitForSent(
      fake.sent.filter((s) => s.instance !== gw.instance).length + 12,
      120_000,
    );
    await first.kill9();
    const sentBeforeCrash = fake.sent.filter((s) => s.instance === gw.instance).length;
    expect(sentBeforeCrash).toBeLessThan(contacts.length);

    await startWorker({ DISPATCH_LEASE_SECONDS: '3', ...FAST_RECONCILE });
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 90_000);
    fake.setResponseDelay(0);

    const received = new Map<string, number>();
    for (const s of fake.sent.filter((x) => x.instance === gw.instance)) {
      received.set(s.number, (received.get(s.number) ?? 0) + 1);
    }
    const rows = await contactRows(c.id);
    expect(rows).toHaveLength(contacts.length);
    for (const row of rows) {
      const messages = received.get(row.phone_number) ?? 0;
      expect(messages).toBeLessThanOrEqual(1);
      if (row.status === 'SENT') {
        expect([row.phone_number, messages]).toEqual([row.phone_number, 1]);
      } else {
        expect(row).toMatchObject({ status: 'FAILED' });
        expect(row.failure_reason).toMatch(/resultado desconhecido/);
      }
    }
    expect(done.sentContacts + done.failedContacts).toBe(contacts.length);
    expect(done.sentContacts).toBe(rows.filter((r) => r.status === 'SENT').length);
  });

  it('takes a killed worker’s campaign over within seconds, not after its 120 s lease, never resending the contact in flight', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.setResponseDelay(3_000);
    const [first, second] = [
      await startWorker({ DISPATCH_LEASE_SECONDS: '120', ...FAST_RECONCILE }),
      await startWorker({ DISPATCH_LEASE_SECONDS: '120', ...FAST_RECONCILE }),
    ];
    const contacts = phones(4, 3000);
    const c = (
      await company.post('/api/campaigns', campaignBody(fake, gw, { contacts })).expect(200)
    ).body;
    const [inFlight] = await fake.waitForSent(fake.sent.length + 1, 30_000);
    const holder = (await db().query(`SELECT locked_by FROM campaigns WHERE id = $1`, [c.id]))
      .rows[0].locked_by as string;
    const victim = holder.includes(`:${first.child.pid}:`) ? first : second;
    await victim.kill9();
    const killedAt = Date.now();
    fake.setResponseDelay(0);
    const sentSoFar = fake.sent.length;
    await fake.waitForSent(sentSoFar + 1, 20_000);
    expect(Date.now() - killedAt).toBeLessThan(20_000);

    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 60_000);
    expect(fake.sentTo(inFlight.number)).toHaveLength(1);
    const perPhone = contacts.map((contact) => fake.sentTo(contact.phoneNumber).length);
    expect(perPhone).toEqual([1, 1, 1, 1]);
    // The contact in flight was reconciled from the gateway's store, not sent again.
    expect(done).toMatchObject({ sentContacts: 4, failedContacts: 0 });
  });

  it('keeps counters true when a send outlives its lease: no PENDING left in a COMPLETED campaign', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(3, 4000);
    for (const contact of contacts) {
      fake.refuseNumber(contact.phoneNumber);
    }
    fake.setResponseDelay(4_000);
    const env = { DISPATCH_LEASE_SECONDS: '2', ...FAST_RECONCILE };
    await Promise.all([startWorker(env), startWorker(env)]);
    const c = (
      await company.post('/api/campaigns', campaignBody(fake, gw, { contacts })).expect(200)
    ).body;
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 90_000);
    fake.setResponseDelay(0);
    const rows = await contactRows(c.id);
    expect(rows.map((r) => r.status)).toEqual(['FAILED', 'FAILED', 'FAILED']);
    const { rows: counters } = await db().query(
      `SELECT sent_contacts, failed_contacts, total_contacts FROM campaigns WHERE id = $1`,
      [c.id],
    );
    expect(counters[0]).toEqual({ sent_contacts: 0, failed_contacts: 3, total_contacts: 3 });
    expect(done).toMatchObject({ sentContacts: 0, failedContacts: 3, pendingContacts: 0 });
    expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);
  });

  it('pauses the campaign, every contact still PENDING, when the worker cannot open the gateway key', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    await startWorker({ ENCRYPTION_KEY: 'another-instance-generated-key-42' });
    const c = (
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { contacts: phones(5, 5000) }))
        .expect(200)
    ).body;
    const paused = await waitForCampaign(company, c.id, (x) => x.status === 'PAUSED', 60_000);
    expect(paused.pauseReason).toMatch(/erro interno repetido/);
    expect(paused.message).toBe(paused.pauseReason);
    const rows = await contactRows(c.id);
    expect(rows.map((r) => r.status)).toEqual(Array(5).fill('PENDING'));
    expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(0);
    const { rows: events } = await db().query(
      `SELECT event_type FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
      [c.id],
    );
    expect(events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'campaign.started',
      'campaign.paused',
    ]);
  });

  it('two worker processes share one 200-contact campaign: 200 messages, none doubled', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(200, 5000);
    await Promise.all([startWorker(), startWorker()]);
    const c = (
      await company.post('/api/campaigns', campaignBody(fake, gw, { contacts })).expect(200)
    ).body;
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 90_000);
    expect(done).toMatchObject({ sentContacts: 200, failedContacts: 0 });
    const numbers = fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.number);
    expect(numbers).toHaveLength(200);
    expect(new Set(numbers).size).toBe(200);
    expect(new Set(numbers)).toEqual(new Set(contacts.map((x) => x.phoneNumber)));
  });

  it('after a kill -9 mid-pool-campaign, every contact ends with exactly one message from one number, or FAILED as unknown', async () => {
    const company = await TestCompany.register(t.http);
    const configs: Array<{ id: number; instance: string }> = [];
    for (let i = 0; i < 3; i += 1) {
      const saved = await connectedConfig(company, fake);
      configs.push({ id: saved.id, instance: saved.gw.instance });
    }
    fake.setResponseDelay(150);
    const contacts = phones(60, 3000);
    const c = (
      await company
        .post('/api/campaigns', {
          name: 'Pool',
          message: 'Olá {PrimeiroNome}',
          gatewayConfigIds: configs.map((x) => x.id),
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
          contacts,
        })
        .expect(200)
    ).body;
    const ours = (): typeof fake.sent =>
      fake.sent.filter((s) => configs.some((x) => x.instance === s.instance));

    const first = await startWorker({ DISPATCH_LEASE_SECONDS: '3', ...FAST_RECONCILE });
    await until(
      () => Promise.resolve(ours().length),
      (n) => n >= 15,
      60_000,
      'sends before the kill',
    );
    await first.kill9();
    expect(ours().length).toBeLessThan(contacts.length);

    await startWorker({ DISPATCH_LEASE_SECONDS: '3', ...FAST_RECONCILE });
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 90_000);
    fake.setResponseDelay(0);

    const received = new Map<string, string[]>();
    for (const s of ours()) {
      received.set(s.number, [...(received.get(s.number) ?? []), s.instance]);
    }
    const { rows } = await db().query<{
      phone_number: string;
      status: string;
      failure_reason: string | null;
    }>(
      `SELECT c.phone_number, c.status, c.failure_reason FROM campaign_contacts c
         JOIN campaigns s ON s.id = c.campaign_id WHERE s.pool_id = $1`,
      [c.id],
    );
    expect(rows).toHaveLength(contacts.length);
    for (const row of rows) {
      const messages = received.get(row.phone_number) ?? [];
      expect(messages.length).toBeLessThanOrEqual(1);
      if (row.status === 'SENT') {
        expect([row.phone_number, messages.length]).toEqual([row.phone_number, 1]);
      } else {
        expect(row).toMatchObject({ status: 'FAILED' });
        expect(row.failure_reason).toMatch(/resultado desconhecido/);
      }
    }
    expect(done.sentContacts + done.failedContacts).toBe(contacts.length);
    expect(new Set(ours().map((s) => s.instance)).size).toBe(3);
  });
});
