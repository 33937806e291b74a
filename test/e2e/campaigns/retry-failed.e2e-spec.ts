import { createWelcomeAutomation, importDatabase, runNowAndWait } from '../../support/automations';
import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';
import { CONTACT_FAILURE_KINDS } from '../../../src/modules/campaigns/domain/contact-failure-kind';

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

function localIn(minutes: number): string {
  // APP_TIMEZONE is America/Sao_Paulo (UTC-3, no daylight saving since 2019).
  return new Date(Date.now() + minutes * 60_000 - 3 * 3600_000).toISOString().slice(0, 19);
}

interface ContactRow {
  phone_number: string;
  status: string;
  failure_kind: string | null;
  retried_at: Date | null;
  retry_count: number;
}

async function contactRows(campaignId: number): Promise<ContactRow[]> {
  const { rows } = await db().query<ContactRow>(
    `SELECT phone_number, status, failure_kind, retried_at, retry_count
       FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

async function eventsOf(campaignId: number): Promise<Array<{ event_type: string; payload: any }>> {
  const { rows } = await db().query(
    `SELECT event_type, payload FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

/** Send requests that reached the fake gateway for this number, whatever their answer. */
function sendRequestsTo(fake: FakeEvolutionApi, instance: string, phone: string): number {
  return fake.requests.filter(
    (r) =>
      r.instance === instance &&
      r.path.startsWith('/message/') &&
      (r.body as { number?: string } | undefined)?.number === phone,
  ).length;
}

async function endedAgo(campaignId: number, interval: string): Promise<void> {
  await db().query(`UPDATE campaigns SET completed_at = now() - $2::interval WHERE id = $1`, [
    campaignId,
    interval,
  ]);
}

/**
 * POST /api/campaigns/{id}/retry-failed against the fake Evolution API: which failures come
 * back (once), which never do and never reach the gateway again, and when a campaign may be
 * retried at all.
 */
describe('retrying a campaign’s failed contacts', () => {
  const { t, fake } = useE2eFixture({
    env: { GATEWAY_SEND_TIMEOUT_MS: '700', RECONCILE_DELAYS_MS: '300,900' },
    noRefusals: true,
    resetFake: true,
  });

  it('records every kind of failure and retries, once, only the gateway’s passing errors', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const [ok, flaky, stubborn, refused, rejected, blank, unknown, blocked] = [
      '5511987661001',
      '5511987661002',
      '5511987661003',
      '5511987661004',
      '5511987661005',
      '5511987661006',
      '5511987661007',
      '5511987661008',
    ];
    fake.scriptSendsTo(flaky, 503, 503, 503);
    fake.scriptSendsTo(stubborn, 500, 500, 500);
    fake.refuseNumber(refused);
    fake.scriptSendsTo(rejected, 413);
    // Sent, but the answer is lost and the gateway keeps no messages: an unknown outcome.
    fake.scriptSendsTo(unknown, 'send-then-drop');
    fake.storesMessages = false;
    const contacts = [ok, flaky, stubborn, refused, rejected, blank, unknown, blocked].map(
      (phoneNumber) => ({ phoneNumber, name: phoneNumber === blank ? '' : 'Ana' }),
    );
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            message: '{PrimeiroNome}',
            contacts,
            intervalMinSeconds: 1,
            intervalMaxSeconds: 1,
          }),
        )
        .expect(200)
    ).body;
    await company
      .post(`/api/companies/${company.id}/blocked-contacts/import`, {
        phoneNumbers: [blocked],
        reason: 'pediu para sair',
      })
      .expect(200);
    const first = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 60_000);
    expect(first).toMatchObject({ sentContacts: 1, failedContacts: 7, unknownOutcomeContacts: 1 });
    expect((await contactRows(c.id)).map((r) => [r.status, r.failure_kind])).toEqual([
      ['SENT', null],
      ['FAILED', 'retries_exhausted'],
      ['FAILED', 'retries_exhausted'],
      ['FAILED', 'refused_number'],
      ['FAILED', 'rejected'],
      ['FAILED', 'blank_message'],
      ['FAILED', 'unknown_outcome'],
      ['FAILED', 'blocked'],
    ]);

    // The retry: the second flaky number fails three times again.
    fake.scriptSendsTo(stubborn, 500, 500, 500);
    const retry = await company.post(`/api/campaigns/${c.id}/retry-failed`).expect(200);
    expect(retry.body).toMatchObject({
      id: c.id,
      status: 'ACTIVE',
      retriedContacts: 2,
      totalContacts: 8,
      sentContacts: 1,
      failedContacts: 5,
      pendingContacts: 2,
      progressPercentage: 75,
      unknownOutcomeContacts: 1,
      completedAt: null,
      message: null,
    });
    expect(retry.body.nextSendAt).toMatch(LOCAL_DATE_TIME);
    const { rows: progress } = await db().query(
      `SELECT progress_step FROM campaigns WHERE id = $1`,
      [c.id],
    );
    expect(progress[0].progress_step).toBe(7);

    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 60_000);
    expect(done).toMatchObject({
      sentContacts: 2,
      failedContacts: 6,
      pendingContacts: 0,
      unknownOutcomeContacts: 1,
    });
    const rows = await contactRows(c.id);
    expect(rows.map((r) => [r.status, r.failure_kind, r.retried_at !== null])).toEqual([
      ['SENT', null, false],
      ['SENT', null, true],
      ['FAILED', 'retries_exhausted', true],
      ['FAILED', 'refused_number', false],
      ['FAILED', 'rejected', false],
      ['FAILED', 'blank_message', false],
      ['FAILED', 'unknown_outcome', false],
      ['FAILED', 'blocked', false],
    ]);
    // Attempts count again from the retry: the flaky number went out at its first.
    expect(rows[1].retry_count).toBe(1);
    expect(rows[2].retry_count).toBe(3);

    // What the gateway saw: one message per number that went out; the numbers never retried
    // got no second request, and the blank and blocked ones none at all.
    expect(fake.sentTo(ok)).toHaveLength(1);
    expect(fake.sentTo(flaky)).toHaveLength(1);
    expect(fake.sentTo(stubborn)).toHaveLength(0);
    expect(fake.sentTo(unknown)).toHaveLength(1);
    expect(
      [ok, flaky, stubborn, refused, rejected, blank, unknown, blocked].map((phone) =>
        sendRequestsTo(fake, gw.instance, phone),
      ),
    ).toEqual([1, 4, 6, 1, 1, 0, 1, 0]);

    const events = await eventsOf(c.id);
    const retried = events.findIndex((e) => e.event_type === 'campaign.retried');
    expect(events.slice(0, retried).map((e) => e.event_type)).toContain('campaign.completed');
    expect(events[retried].payload).toEqual({
      event: 'campaign.retried',
      campaignId: c.id,
      companyId: company.id,
      timestamp: expect.stringMatching(/Z$/),
      stats: { total: 8, sent: 1, failed: 5, pending: 2, progressPercentage: 75 },
      retriedContacts: 2,
    });
    expect(events.slice(retried + 1).map((e) => e.payload.milestone ?? e.event_type)).toEqual([
      80,
      90,
      100,
      'campaign.completed',
    ]);
    expect(events.at(-1)?.payload.stats).toMatchObject({ total: 8, sent: 2, failed: 6 });

    // Once per contact: only the contact already retried is left, so nothing changes.
    const again = await company.post(`/api/campaigns/${c.id}/retry-failed`);
    expect(expectErrorBody(again, 409, `/api/campaigns/${c.id}/retry-failed`)).toMatch(
      /Nenhum contato desta campanha pode ser reenviado/,
    );
    expect((await company.get(`/api/campaigns/${c.id}`).expect(200)).body).toMatchObject({
      status: 'COMPLETED',
      sentContacts: 2,
      failedContacts: 6,
    });
    expect(await eventsOf(c.id)).toHaveLength(events.length);
  });

  it('sends the contacts a FAILED campaign left, once the key works again, within 7 days', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(3, 7100);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { contacts, intervalMinSeconds: 1, intervalMaxSeconds: 1 }),
        )
        .expect(200)
    ).body;
    await fake.waitForSent(1);
    fake.removeInstance(gw.instance);
    fake.addInstance(gw.instance, { apiKey: 'rotated-key', state: 'open' });
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED');
    expect(failed).toMatchObject({ sentContacts: 1, failedContacts: 0, pendingContacts: 2 });

    // The key is still refused: the retry says so, as creation would, and changes nothing.
    const refused = await company.post(`/api/campaigns/${c.id}/retry-failed`);
    expect(expectErrorBody(refused, 400)).toMatch(/chave de API foi recusada/);
    fake.removeInstance(gw.instance);
    fake.addInstance(gw.instance, { apiKey: gw.apiKey, state: 'open' });

    await endedAgo(c.id, '7 days 1 minute');
    const late = await company.post(`/api/campaigns/${c.id}/retry-failed`);
    expect(expectErrorBody(late, 409)).toMatch(/até 7 dias depois do fim da campanha/);
    expect((await company.get(`/api/campaigns/${c.id}`).expect(200)).body.status).toBe('FAILED');

    await endedAgo(c.id, '6 days 23 hours');
    const retry = await company.post(`/api/campaigns/${c.id}/retry-failed`).expect(200);
    expect(retry.body).toMatchObject({
      status: 'ACTIVE',
      retriedContacts: 0,
      pendingContacts: 2,
      message: null,
      completedAt: null,
    });
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 3, failedContacts: 0 });
    expect(contacts.map((p) => fake.sentTo(p.phoneNumber).length)).toEqual([1, 1, 1]);
    // Progress counts again from where the retry left it: 1 of 3 sent, then 40 % to 100 %.
    const events = await eventsOf(c.id);
    const after = events.slice(events.findIndex((e) => e.event_type === 'campaign.failed'));
    expect(after.map((e) => e.payload.milestone ?? e.event_type)).toEqual([
      'campaign.failed',
      'campaign.retried',
      40,
      50,
      60,
      70,
      80,
      90,
      100,
      'campaign.completed',
    ]);
    expect(after[1].payload).toMatchObject({
      retriedContacts: 0,
      stats: { total: 3, sent: 1, failed: 0, pending: 2 },
    });
  });

  it('sends what a campaign failed by a long disconnection left, once the instance is back', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(2, 7200);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { contacts, intervalMinSeconds: 1, intervalMaxSeconds: 1 }),
        )
        .expect(200)
    ).body;
    await fake.waitForSent(1);
    fake.setState(gw.instance, 'close');
    await until(
      async () =>
        (await db().query(`SELECT disconnected_since FROM campaigns WHERE id = $1`, [c.id])).rows[0]
          .disconnected_since,
      (since) => since !== null,
      15_000,
    );
    await db().query(
      `UPDATE campaigns SET disconnected_since = now() - interval '11 minutes', next_send_at = now()
        WHERE id = $1`,
      [c.id],
    );
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED', 30_000);
    expect(failed.message).toMatch(/10 minutos/);

    const closed = await company.post(`/api/campaigns/${c.id}/retry-failed`);
    expect(expectErrorBody(closed, 400)).toMatch(/não está conectada/);
    fake.setState(gw.instance, 'open');
    await company.post(`/api/campaigns/${c.id}/retry-failed`).expect(200);
    // The old disconnection is forgotten: a closed answer now would wait 10 minutes again.
    const { rows } = await db().query(`SELECT disconnected_since FROM campaigns WHERE id = $1`, [
      c.id,
    ]);
    expect(rows[0].disconnected_since).toBeNull();
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 0 });
    expect(contacts.map((p) => fake.sentTo(p.phoneNumber).length)).toEqual([1, 1]);
  });

  it('refuses with 409 a campaign that is not COMPLETED or FAILED, changing nothing', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const create = async (overrides: Record<string, unknown>): Promise<number> =>
      (await company.post('/api/campaigns', campaignBody(fake, gw, overrides)).expect(200)).body.id;
    const slow = { intervalMinSeconds: 3600, intervalMaxSeconds: 3600 };
    const ids: Record<string, number> = {
      DRAFT: await create({ isDraft: true }),
      SCHEDULED: await create({ scheduledFor: localIn(60) }),
      ACTIVE: await create(slow),
      PAUSED: await create(slow),
      CANCELLED: await create({ isDraft: true }),
    };
    await company.put(`/api/campaigns/${ids.PAUSED}/pause`).expect(200);
    await company.put(`/api/campaigns/${ids.CANCELLED}/cancel`).expect(200);
    for (const [status, id] of Object.entries(ids)) {
      const before = (await company.get(`/api/campaigns/${id}`).expect(200)).body;
      expect(before.status).toBe(status);
      const response = await company.post(`/api/campaigns/${id}/retry-failed`);
      expect(expectErrorBody(response, 409, `/api/campaigns/${id}/retry-failed`)).toMatch(
        new RegExp(`^Não é possível reenviar as falhas de uma campanha com status ${status}`),
      );
      const after = (await company.get(`/api/campaigns/${id}`).expect(200)).body;
      expect(after).toMatchObject({
        status,
        sentContacts: before.sentContacts,
        failedContacts: before.failedContacts,
      });
    }
    expect(
      expectErrorBody(await company.post(`/api/campaigns/${ids.PAUSED}/retry-failed`), 409),
    ).toMatch(/retome a campanha/);
    await company.put(`/api/campaigns/${ids.ACTIVE}/cancel`).expect(200);
    await company.put(`/api/campaigns/${ids.PAUSED}/cancel`).expect(200);
  });

  it('refuses with 409 a COMPLETED campaign with nothing retryable, and one whose gateway is gone', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.refuseNumber('5511987667001');
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { contacts: [{ phoneNumber: '5511987667001', name: 'Ana' }] }),
        )
        .expect(200)
    ).body;
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    expect(expectErrorBody(await company.post(`/api/campaigns/${c.id}/retry-failed`), 409)).toMatch(
      /Nenhum contato/,
    );
    await company.delete(`/api/gateway-configs/${c.gatewayConfig.id}`).expect(204);
    expect(expectErrorBody(await company.post(`/api/campaigns/${c.id}/retry-failed`), 409)).toMatch(
      /configuração do gateway desta campanha foi removida/,
    );
    expect(sendRequestsTo(fake, gw.instance, '5511987667001')).toBe(1);
  });

  it('answers another company’s campaign as the other routes do, and hides automation runs', async () => {
    const owner = await TestCompany.register(t.http);
    const other = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.refuseNumber('5511987668001');
    const c = (
      await owner
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { contacts: [{ phoneNumber: '5511987668001', name: 'Ana' }] }),
        )
        .expect(200)
    ).body;
    await waitForCampaign(owner, c.id, (x) => x.status === 'COMPLETED');
    expectErrorBody(await other.post(`/api/campaigns/${c.id}/retry-failed`), 403);
    expectErrorBody(await owner.post('/api/campaigns/999999999/retry-failed'), 404);
    for (const bad of ['abc', '-1', '0', '1.5', '99999999999']) {
      expectErrorBody(await owner.post(`/api/campaigns/${bad}/retry-failed`), 400);
    }
    expect((await owner.get(`/api/campaigns/${c.id}`).expect(200)).body.status).toBe('COMPLETED');

    // An automation's run is a campaign the campaigns API does not show: not found here too.
    const config = (
      await owner
        .post('/api/gateway-configs', {
          name: 'Automação',
          url: fake.url,
          apiKey: gw.apiKey,
          instance: gw.instance,
        })
        .expect(201)
    ).body;
    const database = await importDatabase(owner, [{ telefone: '11987668002', nome: 'Bia' }]);
    const automation = await createWelcomeAutomation(owner, database.id, config.id);
    await runNowAndWait(owner, automation.id);
    const { rows } = await db().query(
      `SELECT id FROM campaigns WHERE company_id = $1 AND automation_run_id IS NOT NULL`,
      [owner.id],
    );
    expect(rows).toHaveLength(1);
    expectErrorBody(await owner.post(`/api/campaigns/${rows[0].id}/retry-failed`), 404);
  });

  it('keeps failure kinds and FAILED rows in step in the schema', async () => {
    const { rows } = await db().query(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid = 'campaign_contacts'::regclass AND conname LIKE '%kind%' ORDER BY conname`,
    );
    expect(rows.map((r: { conname: string }) => r.conname)).toEqual([
      'campaign_contacts_failed_kind_check',
      'campaign_contacts_failure_kind_check',
    ]);
    const listed = [...rows[1].def.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...CONTACT_FAILURE_KINDS].sort());
  });
});
