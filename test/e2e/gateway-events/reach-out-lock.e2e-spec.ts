import { Clock } from '../../../src/common/time/clock';
import { Metrics } from '../../../src/common/metrics/metrics';
import { phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { samplesOf, total } from '../../support/prometheus';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

const LOCKS = 'campaign_service_reachout_locks_total';

/**
 * WhatsApp's reach-out lock (error 463): a message the gateway accepted and WhatsApp then
 * refused is FAILED `not_delivered`, refusals lock the instance for people who have not talked
 * with it, and while it is locked only warm contacts are sent. The fake gateway posts the nacks
 * and the people's messages as Evolution API v2.3.6 builds them.
 */
describe('the reach-out lock', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  async function contactRows(campaignId: number): Promise<Array<Record<string, any>>> {
    const { rows } = await db().query(
      `SELECT phone_number, status, failure_kind, failure_reason, gateway_message_id AS key, warm
         FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
    return rows;
  }

  async function configOf(company: TestCompany, id: number): Promise<Record<string, any>> {
    return (await company.get(`/api/gateway-configs/${id}`).expect(200)).body;
  }

  async function notDelivered(): Promise<number> {
    return total(samplesOf(await t.app.get(Metrics).scrape()), 'campaign_service_messages_total', {
      outcome: 'failed',
      reason: 'not_delivered',
    });
  }

  async function locks(cause: string): Promise<number> {
    return total(samplesOf(await t.app.get(Metrics).scrape()), LOCKS, { cause });
  }

  /** A person writes to the instance, and the service has recorded it. */
  async function personWrites(instance: string, configId: number, from: string): Promise<void> {
    await fake.emitInbound(instance, { from, text: 'Oi! Quero saber das ofertas' });
    await until(
      async () =>
        (
          await db().query(
            `SELECT count(*)::int AS n FROM contact_conversations
              WHERE gateway_config_id = $1 AND phone_key = phone_match_key($2)`,
            [configId, from],
          )
        ).rows[0].n,
      (n) => n === 1,
    );
  }

  it('turns a refused message FAILED not_delivered and moves the counters, also when the nack beats the send’s answer, and twice', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const refusedBefore = await notDelivered();
    // The gateway answers the send late: its nack arrives before the send is recorded.
    fake.setResponseDelay(1_500);
    const campaign = await startCampaign(company, config.id, { contacts: phones(2, 100) });
    const first = await until(
      () => Promise.resolve(fake.sent.filter((s) => s.instance === config.instance)),
      (sent) => sent.length === 1,
    );
    expect((await contactRows(campaign.id))[0]).toMatchObject({ key: null });
    expect(await fake.emitNack(config.instance, first[0].messageId)).toBe(200);
    fake.setResponseDelay(0);
    const done = await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
    const refused = await until(
      () => contactRows(campaign.id),
      (rows) => rows[0].status === 'FAILED',
    );
    expect(refused[0]).toMatchObject({
      status: 'FAILED',
      failure_kind: 'not_delivered',
      failure_reason: 'o WhatsApp recusou a mensagem depois que o gateway a aceitou',
    });
    expect(refused[1].status).toBe('SENT');
    const after = (await company.get(`/api/campaigns/${campaign.id}`).expect(200)).body;
    expect(done.sentContacts + done.failedContacts).toBe(2);
    expect(after).toMatchObject({ sentContacts: 1, failedContacts: 1, successRate: 50 });
    const listed = (await company.get(`/api/campaigns/${campaign.id}/contacts`).expect(200)).body;
    expect(listed[0]).toMatchObject({ status: 'FAILED', failureKind: 'not_delivered' });

    // The same nack again (a gateway retrying its webhook): nothing moves twice.
    const data = {
      keyId: refused[0].key,
      remoteJid: `${refused[0].phone_number}@s.whatsapp.net`,
      fromMe: true,
      status: 'ERROR',
    };
    expect(await fake.emit(config.instance, 'messages.update', data)).toBe(200);
    // The second contact's nack after its delivery receipt: it arrived, it stays SENT.
    expect(await fake.emitReceipt(config.instance, refused[1].key, 'DELIVERY_ACK')).toBe(200);
    expect(await fake.emitNack(config.instance, refused[1].key)).toBe(200);
    await until(
      async () => (await company.get(`/api/campaigns/${campaign.id}`)).body.deliveredContacts,
      (delivered) => delivered === 1,
    );
    await until(
      async () =>
        (
          await db().query(
            `SELECT count(*)::int AS n FROM gateway_events WHERE gateway_config_id = $1`,
            [config.id],
          )
        ).rows[0].n,
      (n) => n === 0,
    );
    expect((await company.get(`/api/campaigns/${campaign.id}`)).body).toMatchObject({
      sentContacts: 1,
      failedContacts: 1,
    });
    expect((await contactRows(campaign.id)).map((row) => row.status)).toEqual(['FAILED', 'SENT']);
    // Counted once, when the refusal was applied: not for the nack that waited, nor the repeat.
    expect(await notDelivered()).toBe(refusedBefore + 1);
  });

  it('counts a late delivery receipt of a refused message as arrived after all', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const campaign = await startCampaign(company, config.id, { contacts: phones(1, 200) });
    await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
    const [row] = await contactRows(campaign.id);
    await fake.emitNack(config.instance, row.key);
    await waitForCampaign(company, campaign.id, (x) => x.failedContacts === 1);
    await fake.emitReceipt(config.instance, row.key, 'READ');
    const arrived = await waitForCampaign(company, campaign.id, (x) => x.sentContacts === 1);
    expect(arrived).toMatchObject({ failedContacts: 0, deliveredContacts: 1, readContacts: 1 });
    expect((await contactRows(campaign.id))[0]).toMatchObject({
      status: 'SENT',
      failure_kind: null,
    });
  });

  it('locks at once on a nack that carries 463, shows it, announces it once, and a person lifts it', async () => {
    const company = await TestCompany.register(t.http);
    const other = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const before = await locks('NACK_463');
    const campaign = await startCampaign(company, config.id, { contacts: phones(1, 300) });
    await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
    const [row] = await contactRows(campaign.id);
    await fake.emitNack(config.instance, row.key, { code: '463', forwardStubParameters: true });

    const locked = await until(
      () => configOf(company, config.id),
      (x) => x.reachOutLock !== null,
    );
    expect(locked.reachOutLock).toMatchObject({ scope: 'COLD', cause: 'NACK_463' });
    const hours =
      (Date.parse(locked.reachOutLock.lockedUntil) - Date.parse(locked.reachOutLock.lockedAt)) /
      3_600_000;
    expect(hours).toBe(24);
    expect((await contactRows(campaign.id))[0].failure_reason).toMatch(/\(código 463\)$/);
    const usage = (await company.get(`/api/gateway-configs/${config.id}/usage`).expect(200)).body;
    expect(usage.reachOutLock).toEqual(locked.reachOutLock);
    expect(await locks('NACK_463')).toBe(before + 1);
    const { rows: events } = await db().query(
      `SELECT payload FROM outbox_events WHERE company_id = $1 AND event_type = 'gateway.restricted'`,
      [company.id],
    );
    expect(events.map((e: { payload: Record<string, unknown> }) => e.payload)).toEqual([
      expect.objectContaining({
        event: 'gateway.restricted',
        gatewayConfigId: config.id,
        scope: 'COLD',
        cause: 'NACK_463',
        lockedUntil: locked.reachOutLock.lockedUntil,
      }),
    ]);

    // Another company can neither see nor lift it.
    const path = `/api/gateway-configs/${config.id}/restriction`;
    expect(expectErrorBody(await other.delete(path), 403, path)).toBe(
      'Este recurso pertence a outra empresa',
    );
    expect((await configOf(company, config.id)).reachOutLock).not.toBeNull();
    await company.delete(path).expect(204);
    expect((await configOf(company, config.id)).reachOutLock).toBeNull();
    // Lifting what is not locked changes nothing.
    await company.delete(path).expect(204);
  });

  it('locks cold contacts after three refusals: warm ones go on, cold ones wait ACTIVE, and all go after the cool-down', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const [warmA, warmB] = phones(2, 400).map((p) => p.phoneNumber);
    await personWrites(config.instance, config.id, warmA);
    await personWrites(config.instance, config.id, warmB);

    const cold = await startCampaign(company, config.id, { contacts: phones(3, 500) });
    await waitForCampaign(company, cold.id, (x) => x.status === 'COMPLETED');
    for (const row of await contactRows(cold.id)) {
      await fake.emitNack(config.instance, row.key);
    }
    const locked = await until(
      () => configOf(company, config.id),
      (x) => x.reachOutLock !== null,
    );
    expect(locked.reachOutLock).toMatchObject({ scope: 'COLD', cause: 'REFUSALS' });
    expect(await waitForCampaign(company, cold.id, (x) => x.failedContacts === 3)).toMatchObject({
      sentContacts: 0,
    });

    const mixed = phones(2, 600).concat(phones(2, 400));
    const campaign = await startCampaign(company, config.id, { contacts: mixed });
    const waiting = await waitForCampaign(
      company,
      campaign.id,
      (x) => x.sentContacts === 2 && x.waitingReason === 'REACHOUT_LOCKED',
    );
    expect(waiting.status).toBe('ACTIVE');
    expect(waiting.nextSendAt).not.toBeNull();
    const sentTo = () =>
      fake.sent.filter((s) => s.instance === config.instance).map((s) => s.number);
    expect(sentTo().slice(-2).sort()).toEqual([warmA, warmB].sort());
    const listed = (await company.get(`/api/campaigns/${campaign.id}/contacts`).expect(200)).body;
    expect(listed.map((c: { warm: boolean }) => c.warm)).toEqual([false, false, true, true]);

    // A day later, by the service's clock: the lock is over and the cold contacts go.
    const clock = t.app.get(Clock);
    const later = jest
      .spyOn(clock, 'now')
      .mockImplementation(() => new Date(Date.now() + 25 * 3_600_000));
    try {
      const done = await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
      expect(done).toMatchObject({ sentContacts: 4, failedContacts: 0, waitingReason: null });
    } finally {
      later.mockRestore();
    }
    expect((await configOf(company, config.id)).reachOutLock).toBeNull();
    expect(sentTo().slice(-2).sort()).toEqual(
      mixed
        .slice(0, 2)
        .map((p) => p.phoneNumber)
        .sort(),
    );
  });

  it('holds the instance entirely when a warm contact is refused while locked, and a retry sends the refused again once lifted', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const [warm] = phones(1, 700).map((p) => p.phoneNumber);
    await personWrites(config.instance, config.id, warm);
    const first = await startCampaign(company, config.id, { contacts: phones(1, 800) });
    await waitForCampaign(company, first.id, (x) => x.status === 'COMPLETED');
    await fake.emitNack(config.instance, (await contactRows(first.id))[0].key, {
      code: '463',
      forwardStubParameters: true,
    });
    await until(
      () => configOf(company, config.id),
      (x) => x.reachOutLock?.scope === 'COLD',
    );
    const second = await startCampaign(company, config.id, { contacts: phones(1, 700) });
    await waitForCampaign(company, second.id, (x) => x.status === 'COMPLETED');
    await fake.emitNack(config.instance, (await contactRows(second.id))[0].key);
    const all = await until(
      () => configOf(company, config.id),
      (x) => x.reachOutLock?.scope === 'ALL',
    );
    expect(all.reachOutLock.cause).toBe('WARM_REFUSED');

    const sentBefore = fake.sent.length;
    const third = await startCampaign(company, config.id, { contacts: phones(1, 700) });
    await waitForCampaign(company, third.id, (x) => x.waitingReason === 'REACHOUT_LOCKED');
    expect(fake.sent.length).toBe(sentBefore);

    await company.delete(`/api/gateway-configs/${config.id}/restriction`).expect(204);
    await waitForCampaign(company, third.id, (x) => x.status === 'COMPLETED');
    const retried = await company.post(`/api/campaigns/${first.id}/retry-failed`).expect(200);
    expect(retried.body.status).toBe('ACTIVE');
    const resent = await waitForCampaign(company, first.id, (x) => x.status === 'COMPLETED');
    expect(resent).toMatchObject({ sentContacts: 1, failedContacts: 0 });
    expect(fake.sent.filter((s) => s.number === phones(1, 800)[0].phoneNumber)).toHaveLength(2);
  });

  it('sends warm contacts first when the campaign asks for it', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const contacts = phones(4, 900);
    await personWrites(config.instance, config.id, contacts[2].phoneNumber);
    const campaign = await startCampaign(company, config.id, { contacts, warmFirst: true });
    expect(campaign.warmFirst).toBe(true);
    await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
    const order = fake.sent.filter((s) => s.instance === config.instance).map((s) => s.number);
    expect(order).toEqual([2, 0, 1, 3].map((i) => contacts[i].phoneNumber));
  });
});
