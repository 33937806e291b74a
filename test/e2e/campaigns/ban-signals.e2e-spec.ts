import { connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';

const DEFAULTS = { failuresInRow: 5, refusedPercent: 30, refusedSample: 50 };

/**
 * The engine pauses a campaign whose sends show ban signals — failures in a row, a list full
 * of numbers not on WhatsApp, the number logged out (gateway-events/delivery-tracking) — with
 * its reason, a campaign.paused event and a notice; a person resumes it after looking.
 */
describe('auto-pause on ban signals', () => {
  const { t, fake } = useE2eFixture({ noRefusals: true });

  async function campaignOf(
    company: TestCompany,
    contacts: Array<{ phoneNumber: string; name: string }>,
  ): Promise<{ id: number; instance: string }> {
    const gateway = connectedInstance(fake);
    const created = await company
      .post('/api/campaigns', {
        name: 'Sinais',
        gatewayUrl: fake.url,
        gatewayApiKey: gateway.apiKey,
        gatewayInstance: gateway.instance,
        message: 'Olá {PrimeiroNome}',
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
        notificationPhone: '11999990000',
        contacts,
      })
      .expect(200);
    return { id: created.body.id, instance: gateway.instance };
  }

  async function eventsOf(
    campaignId: number,
  ): Promise<Array<{ event_type: string; payload: any }>> {
    const { rows } = await db().query(
      `SELECT event_type, payload FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
    return rows;
  }

  async function noticesOf(companyId: number): Promise<Array<{ reason: string; text: string }>> {
    const { rows } = await db().query(
      `SELECT reason, text FROM notices WHERE company_id = $1 ORDER BY id`,
      [companyId],
    );
    return rows;
  }

  /** Numbers `pattern` marks 'x' are not on WhatsApp; '.' ones are. */
  function contactsLike(
    pattern: string,
    start: number,
  ): Array<{ phoneNumber: string; name: string }> {
    const contacts = phones(pattern.length, start);
    [...pattern].forEach((mark, i) => {
      if (mark === 'x') {
        fake.refuseNumber(contacts[i].phoneNumber);
      }
    });
    return contacts;
  }

  it('pauses after five failed sends in a row, with the reason, an event and a notice; resuming finishes it', async () => {
    const company = await TestCompany.register(t.http);
    fake.failNext(5, 413);
    const campaign = await campaignOf(company, phones(8, 1000));
    const paused = await waitForCampaign(company, campaign.id, (c) => c.status === 'PAUSED');
    expect(paused).toMatchObject({ sentContacts: 0, failedContacts: 5 });
    expect(paused.pauseReason).toMatch(/^5 envios seguidos falharam/);
    // No contact got a message (the notice goes to the company's own phone).
    const toContacts = fake.sent.filter(
      (m) => m.instance === campaign.instance && m.number !== '5511999990000',
    );
    expect(toContacts).toHaveLength(0);

    const events = await eventsOf(campaign.id);
    const pausedEvents = events.filter((e) => e.event_type === 'campaign.paused');
    expect(pausedEvents).toHaveLength(1);
    expect(pausedEvents[0].payload).toMatchObject({
      event: 'campaign.paused',
      reason: paused.pauseReason,
      stats: { sent: 0, failed: 5 },
    });
    const notices = await noticesOf(company.id);
    expect(notices.map((n) => n.reason)).toEqual(['campaign_paused']);
    expect(notices[0].text).toContain('envios seguidos falharam');

    await company.put(`/api/campaigns/${campaign.id}/resume`).expect(200);
    const done = await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 3, failedContacts: 5 });
  });

  it('pauses when more than 30 % of the first 50 sends are numbers not on WhatsApp, as soon as that is certain', async () => {
    const company = await TestCompany.register(t.http);
    // Four refused in every five: never five failures in a row; the 16th refusal is the 19th send.
    const campaign = await campaignOf(company, contactsLike('xxxx.'.repeat(12), 2000));
    const paused = await waitForCampaign(company, campaign.id, (c) => c.status === 'PAUSED');
    expect(paused.pauseReason).toMatch(/mais de 30% dos primeiros 50 envios/);
    expect(paused).toMatchObject({ sentContacts: 3, failedContacts: 16 });
    const types = (await eventsOf(campaign.id)).map((e) => e.event_type);
    expect(types.filter((type) => type === 'campaign.paused')).toHaveLength(1);
  });

  it('counts failures in a row only: a message that goes out starts the count again', async () => {
    const company = await TestCompany.register(t.http);
    await company
      .patch(`/api/companies/${company.id}/settings`, {
        autoPause: { failuresInRow: 5, refusedPercent: 100, refusedSample: 50 },
      })
      .expect(200);
    const campaign = await campaignOf(company, contactsLike('xxxx.xxxx.', 3000));
    const done = await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 8, pauseReason: null });
    const types = (await eventsOf(campaign.id)).map((e) => e.event_type);
    expect(types).not.toContain('campaign.paused');
  });

  it('follows the company’s own thresholds', async () => {
    const company = await TestCompany.register(t.http);
    const settings = await company
      .patch(`/api/companies/${company.id}/settings`, {
        autoPause: { failuresInRow: 2, refusedPercent: 30, refusedSample: 50 },
      })
      .expect(200);
    expect(settings.body.autoPause).toEqual({
      failuresInRow: 2,
      refusedPercent: 30,
      refusedSample: 50,
    });
    const campaign = await campaignOf(company, contactsLike('xx........', 4000));
    const paused = await waitForCampaign(company, campaign.id, (c) => c.status === 'PAUSED');
    expect(paused.pauseReason).toMatch(/^2 envios seguidos falharam/);
    expect(paused).toMatchObject({ sentContacts: 0, failedContacts: 2 });

    // Back to the defaults with null.
    const reset = await company
      .patch(`/api/companies/${company.id}/settings`, { autoPause: null })
      .expect(200);
    expect(reset.body.autoPause).toEqual(DEFAULTS);
  });

  it.each<[string, unknown]>([
    ['failures in a row below 2', { ...DEFAULTS, failuresInRow: 1 }],
    ['failures in a row above 100', { ...DEFAULTS, failuresInRow: 101 }],
    ['a fractional count', { ...DEFAULTS, failuresInRow: 2.5 }],
    ['a percent of 0', { ...DEFAULTS, refusedPercent: 0 }],
    ['a percent above 100', { ...DEFAULTS, refusedPercent: 101 }],
    ['a sample below 10', { ...DEFAULTS, refusedSample: 9 }],
    ['a sample above 1000', { ...DEFAULTS, refusedSample: 1001 }],
    ['a missing threshold', { failuresInRow: 5, refusedPercent: 30 }],
    ['a threshold as text', { ...DEFAULTS, refusedPercent: '30' }],
    ['an unknown key', { ...DEFAULTS, pauseAfter: 3 }],
    ['a list', [5, 30, 50]],
    ['a number', 5],
  ])('refuses %s with 400 and changes nothing', async (_label, autoPause) => {
    const company = await TestCompany.register(t.http);
    await company
      .patch(`/api/companies/${company.id}/settings`, {
        autoPause: { failuresInRow: 7, refusedPercent: 40, refusedSample: 60 },
      })
      .expect(200);
    const refused = await company.patch(`/api/companies/${company.id}/settings`, { autoPause });
    expect(expectErrorBody(refused, 400)).toMatch(/autoPause/);
    const { rows } = await db().query(`SELECT auto_pause FROM companies WHERE id = $1`, [
      company.id,
    ]);
    expect(rows[0].auto_pause).toEqual({ failuresInRow: 7, refusedPercent: 40, refusedSample: 60 });
  });
});
