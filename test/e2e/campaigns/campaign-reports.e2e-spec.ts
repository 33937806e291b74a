import { DateTime } from 'luxon';
import { createWelcomeAutomation, importDatabase, runNowAndWait } from '../../support/automations';
import { phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { CONTACT_FAILURE_KINDS } from '../../../src/modules/campaigns/domain/contact-failure-kind';

const ZONE = 'America/Sao_Paulo';
const LOCAL_HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}:00:00$/;
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const COUNTS = ['total', 'sent', 'delivered', 'read', 'replied', 'optedOut', 'failed'] as const;

type Contact = Record<string, any>;

/** The funnel as a person counts it from the contacts list and the block list. */
function funnelOf(contacts: Contact[], optedOut: Set<string>): Record<string, unknown> {
  const sent = contacts.filter((c) => c.status === 'SENT');
  const failed = contacts.filter((c) => c.status === 'FAILED');
  return {
    total: contacts.length,
    pending: contacts.filter((c) => c.status === 'PENDING').length,
    sent: sent.length,
    delivered: sent.filter((c) => c.deliveredAt).length,
    read: sent.filter((c) => c.readAt).length,
    replied: sent.filter((c) => c.repliedAt).length,
    optedOut: sent.filter((c) => optedOut.has(c.phoneNumber)).length,
    failed: failed.length,
    failedByKind: Object.fromEntries(
      CONTACT_FAILURE_KINDS.map((kind) => [
        kind,
        failed.filter((c) => c.failureKind === kind).length,
      ]),
    ),
  };
}

async function optedOutPhones(company: TestCompany): Promise<Set<string>> {
  const page = (
    await company.get(`/api/companies/${company.id}/blocked-contacts?size=100`).expect(200)
  ).body;
  return new Set(
    page.content
      .filter((b: { blockedBy: string }) => b.blockedBy === 'OPT_OUT')
      .map((b: { phoneNumber: string }) => b.phoneNumber),
  );
}

async function contactsOf(company: TestCompany, id: number): Promise<Contact[]> {
  return (await company.get(`/api/campaigns/${id}/contacts?size=100`).expect(200)).body;
}

function sumOf(rows: Array<Record<string, any>>, field: string): number {
  return rows.reduce((sum, row) => sum + (row[field] as number), 0);
}

/** A local day `daysAgo` before today, at a local time, as an instant. */
function localAt(daysAgo: number, time: string): DateTime {
  const day = DateTime.now().setZone(ZONE).startOf('day').minus({ days: daysAgo });
  const [hour, minute] = time.split(':').map(Number);
  return day.set({ hour, minute });
}

/**
 * GET /api/campaigns/{id}/report and GET /api/campaigns/report against the fake gateway: the
 * figures a person counts from the contacts list, per number of a pool, per local day over
 * campaigns and automation runs; tenancy and bad input.
 */
describe('campaign reports', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  it('reports what the contacts list shows for receipts, replies, failures and an opt-out', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const contacts = phones(8, 5100);
    fake.refuseNumber(contacts[6].phoneNumber);
    fake.scriptSendsTo(contacts[7].phoneNumber, 413);
    const campaign = await startCampaign(company, config.id, { contacts });
    await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
    const keyOf = (i: number): string => fake.sentTo(contacts[i].phoneNumber)[0].messageId;
    await fake.emitReceipt(config.instance, keyOf(0), 'DELIVERY_ACK');
    await fake.emitReceipt(config.instance, keyOf(1), 'READ');
    await fake.emitReceipt(config.instance, keyOf(2), 'DELIVERY_ACK');
    await fake.emitNack(config.instance, keyOf(5));
    await fake.emitInbound(config.instance, { from: contacts[2].phoneNumber, text: 'Quero' });
    await fake.emitInbound(config.instance, { from: contacts[3].phoneNumber, text: 'SAIR' });
    await waitForCampaign(
      company,
      campaign.id,
      (x) =>
        x.deliveredContacts === 3 &&
        x.readContacts === 1 &&
        x.repliedContacts === 2 &&
        x.optedOutContacts === 1 &&
        x.failedContacts === 3,
    );

    const report = (await company.get(`/api/campaigns/${campaign.id}/report`).expect(200)).body;
    const listed = await contactsOf(company, campaign.id);
    const expected = funnelOf(listed, await optedOutPhones(company));
    expect(expected).toMatchObject({ sent: 5, delivered: 3, read: 1, replied: 2, optedOut: 1 });
    expect(expected.failedByKind).toMatchObject({
      refused_number: 1,
      rejected: 1,
      not_delivered: 1,
    });
    expect(report.funnel).toMatchObject(expected);
    expect(report.funnel).toMatchObject({
      deliveryRate: 60,
      readRate: 20,
      replyRate: 40,
      optOutRate: 20,
      failureRate: 37.5,
    });
    expect(report).toMatchObject({ campaignId: campaign.id, status: 'COMPLETED' });
    expect(report.senders).toEqual([
      expect.objectContaining({
        gatewayConfigId: config.id,
        instance: config.instance,
        ...expected,
      }),
    ]);
    expect(sumOf(report.hours, 'sent')).toBe(5);
    for (const hour of report.hours) {
      expect(hour.hour).toMatch(LOCAL_HOUR);
    }
    expect(report.firstSendAt).toMatch(LOCAL_DATE_TIME);
    expect(report.lastSendAt >= report.firstSendAt).toBe(true);
    expect(report.completedAt).toMatch(LOCAL_DATE_TIME);
    expect(report.durationSeconds).toBeGreaterThanOrEqual(0);
  });

  it('reports a pool per number, adding up to the campaign', async () => {
    const company = await TestCompany.register(t.http);
    const first = await trackedConfig(company, fake);
    const second = await trackedConfig(company, fake);
    const contacts = phones(6, 5200);
    const pool = (
      await company
        .post('/api/campaigns', {
          name: 'Pool',
          gatewayConfigIds: [first.id, second.id],
          message: 'Olá {PrimeiroNome}',
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
          contacts,
        })
        .expect(200)
    ).body;
    await waitForCampaign(company, pool.id, (x) => x.status === 'COMPLETED');
    const listed = await contactsOf(company, pool.id);
    const sentThrough = listed.find((c) => c.sender.gatewayConfigId === second.id) as Contact;
    await fake.emitReceipt(
      second.instance,
      fake.sentTo(sentThrough.phoneNumber)[0].messageId,
      'READ',
    );
    await waitForCampaign(company, pool.id, (x) => x.readContacts === 1);

    const report = (await company.get(`/api/campaigns/${pool.id}/report`).expect(200)).body;
    expect(report.funnel).toMatchObject({ total: 6, sent: 6, delivered: 1, read: 1, failed: 0 });
    expect(report.senders.map((s: Contact) => s.gatewayConfigId)).toEqual([first.id, second.id]);
    const after = await contactsOf(company, pool.id);
    for (const sender of report.senders) {
      const own = after.filter((c) => c.sender.gatewayConfigId === sender.gatewayConfigId);
      expect(own.length).toBeGreaterThan(0);
      expect(sender).toMatchObject(funnelOf(own, new Set()));
    }
    for (const field of COUNTS) {
      expect(sumOf(report.senders, field)).toBe(report.funnel[field]);
    }
    expect(sumOf(report.hours, 'sent')).toBe(6);
    expect(report.messagesPerMinute === null || report.messagesPerMinute > 0).toBe(true);
  });

  it('sums the company’s campaigns and automation runs per local day', async () => {
    const company = await TestCompany.register(t.http);
    const other = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const morning = phones(3, 5300);
    const evening = phones(2, 5400);
    fake.refuseNumber(evening[1].phoneNumber);
    const first = await startCampaign(company, config.id, { contacts: morning });
    const second = await startCampaign(company, config.id, { contacts: evening });
    await waitForCampaign(company, first.id, (x) => x.status === 'COMPLETED');
    await waitForCampaign(company, second.id, (x) => x.status === 'COMPLETED');
    const database = await importDatabase(company, [{ telefone: '11987665300', nome: 'Bia' }]);
    const automation = await createWelcomeAutomation(company, database.id, config.id);
    await runNowAndWait(company, automation.id);
    const { rows: runs } = await db().query<{ id: number }>(
      `SELECT id FROM campaigns WHERE company_id = $1 AND automation_run_id IS NOT NULL`,
      [company.id],
    );
    expect(runs).toHaveLength(1);

    // Three local days; the failure at 23:30 and the run's send at 00:30 sit beside midnight.
    const day1 = localAt(10, '12:00');
    const day2 = localAt(5, '10:00');
    const day3 = localAt(2, '00:30');
    await db().query(
      `UPDATE campaign_contacts SET sent_at = $2, delivered_at = $2 WHERE campaign_id = $1`,
      [first.id, day1.toJSDate()],
    );
    await db().query(
      `UPDATE campaign_contacts SET sent_at = CASE WHEN status = 'SENT' THEN $2::timestamptz END,
              failed_at = CASE WHEN status = 'FAILED' THEN $3::timestamptz END
        WHERE campaign_id = $1`,
      [second.id, day2.toJSDate(), day2.set({ hour: 23, minute: 30 }).toJSDate()],
    );
    await db().query(`UPDATE campaign_contacts SET sent_at = $2 WHERE campaign_id = $1`, [
      runs[0].id,
      day3.toJSDate(),
    ]);

    const from = localAt(11, '00:00').toISODate() as string;
    const to = localAt(0, '00:00').toISODate() as string;
    const report = (await company.get(`/api/campaigns/report?from=${from}&to=${to}`).expect(200))
      .body;
    expect(report).toMatchObject({ from, to, timezone: ZONE });
    expect(report.days).toHaveLength(12);
    const byDate = new Map(report.days.map((d: Contact) => [d.date, d]));
    expect(byDate.get(day1.toISODate())).toMatchObject({
      total: 3,
      sent: 3,
      delivered: 3,
      failed: 0,
      campaigns: 1,
      automationRuns: 0,
      deliveryRate: 100,
    });
    expect(byDate.get(day2.toISODate())).toMatchObject({
      total: 2,
      sent: 1,
      failed: 1,
      failedByKind: expect.objectContaining({ refused_number: 1 }),
      campaigns: 1,
      automationRuns: 0,
    });
    expect(byDate.get(day3.toISODate())).toMatchObject({
      total: 1,
      sent: 1,
      campaigns: 0,
      automationRuns: 1,
    });
    const busy = new Set([day1, day2, day3].map((d) => d.toISODate()));
    for (const day of report.days.filter((d: Contact) => !busy.has(d.date))) {
      expect(day).toMatchObject({ total: 0, sent: 0, failed: 0, campaigns: 0 });
    }
    for (const field of COUNTS) {
      expect(report.totals[field]).toBe(sumOf(report.days, field));
    }
    expect(report.totals).toMatchObject({ total: 6, campaigns: 2, automationRuns: 1 });

    const foreign = (await other.get(`/api/campaigns/report?from=${from}&to=${to}`).expect(200))
      .body;
    expect(foreign.totals).toMatchObject({ total: 0, campaigns: 0, automationRuns: 0 });
    expectErrorBody(await company.get(`/api/campaigns/${runs[0].id}/report`), 404);
  });

  it('answers the report route before the campaign route, over the last 30 days by default', async () => {
    const company = await TestCompany.register(t.http);
    const report = (await company.get('/api/campaigns/report').expect(200)).body;
    const today = DateTime.now().setZone(ZONE);
    expect(report.to).toBe(today.toISODate());
    expect(report.from).toBe(today.minus({ days: 29 }).toISODate());
    expect(report.days).toHaveLength(30);
    expect(report.days[0].date).toBe(report.from);
    const widest = (
      await company.get('/api/campaigns/report?from=2026-01-01&to=2026-04-02').expect(200)
    ).body;
    expect(widest.days).toHaveLength(92);
  });

  it('refuses another company’s campaign, unknown ids and bad ranges', async () => {
    const owner = await TestCompany.register(t.http);
    const stranger = await TestCompany.register(t.http);
    const config = await trackedConfig(owner, fake);
    const campaign = await startCampaign(owner, config.id, { contacts: phones(1, 5500) });
    expectErrorBody(await stranger.get(`/api/campaigns/${campaign.id}/report`), 403);
    expectErrorBody(await owner.get('/api/campaigns/999999999/report'), 404);
    expectErrorBody(await owner.get('/api/campaigns/abc/report'), 400);
    for (const query of [
      'from=2026-02-30',
      'from=20260101',
      'to=hoje',
      'from=2026-03-10&to=2026-03-09',
      'from=2026-01-01&to=2026-04-03',
      'to=2026-01-01&from=2025-01-01',
    ]) {
      const message = expectErrorBody(await owner.get(`/api/campaigns/report?${query}`), 400);
      expect(message).toMatch(/^\{(from|to)=/);
    }
  });
});
