import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';
import { WebhookReceiver } from '../../support/webhook-receiver';

const ENCRYPTION_KEY = 'campaign-notices-e2e-encryption-key';

/**
 * The incidents of a campaign, as the company hears of them: a webhook event and a WhatsApp
 * notice to notificationPhone, at most one notice per incident however often the engine
 * observes it. On a database of its own (its engine must not take other files' campaigns).
 */
describe('campaign incidents: notices and webhook events', () => {
  const receiver = new WebhookReceiver();
  const { t, fake, pool } = useE2eFixture({
    database: 'campaign_notices',
    env: { ENCRYPTION_KEY },
    servers: [receiver],
  });

  async function notices(
    companyId: number,
  ): Promise<Array<{ reason: string; dedup_key: string; phone_number: string; status: string }>> {
    const { rows } = await pool.query(
      `SELECT reason, dedup_key, phone_number, status FROM notices WHERE company_id = $1 ORDER BY id`,
      [companyId],
    );
    return rows;
  }

  /** Send attempts the engine made for campaign contacts on this instance (notices excluded). */
  function contactSendAttempts(instance: string, noticePhone: string): number {
    return fake.requests.filter(
      (r) =>
        r.instance === instance &&
        r.path.startsWith('/message/') &&
        (r.body as { number?: string } | undefined)?.number !== noticePhone,
    ).length;
  }

  async function subscribe(company: TestCompany, path: string): Promise<void> {
    const created = await company
      .put(`/api/companies/${company.id}/webhook`, { url: `${receiver.url}${path}` })
      .expect(201);
    receiver.trust(created.body.secret);
  }

  it('a campaign that fails gives one campaign.failed event and one notice, sent once', async () => {
    const company = await TestCompany.register(t.http);
    const path = `/failed/${company.id}`;
    await subscribe(company, path);
    const gw = connectedInstance(fake);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts: phones(3, 100),
            intervalMinSeconds: 1,
            intervalMaxSeconds: 1,
            notificationPhone: '11999994444',
          }),
        )
        .expect(200)
    ).body;
    await fake.waitForSent(fake.sent.length + 1);
    fake.failNext(1, 401, 'send');
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED');
    expect(failed.message).toMatch(/credenciais/);

    const sent = await until(
      () => notices(company.id),
      (rows) => rows.some((r) => r.status === 'SENT'),
      20_000,
      'the failure notice to be sent',
    );
    expect(sent).toEqual([
      {
        reason: 'campaign_failed',
        dedup_key: `campaign:${c.id}:failed`,
        phone_number: '5511999994444',
        status: 'SENT',
      },
    ]);
    const messages = fake.sentTo('5511999994444');
    expect(messages).toHaveLength(1);
    expect(messages[0].body.text).toContain(failed.message);

    await receiver.waitFor(
      () => receiver.unique(path).some((r) => r.body.event === 'campaign.failed'),
      20_000,
      'campaign.failed',
    );
    const events = receiver.unique(path).map((r) => r.body);
    const failedEvents = events.filter((e) => e.event === 'campaign.failed');
    expect(failedEvents).toHaveLength(1);
    expect(failedEvents[0]).toMatchObject({
      campaignId: c.id,
      companyId: company.id,
      reason: failed.message,
      stats: { total: 3, sent: 1, failed: 0, pending: 2 },
    });
    expect(Object.keys(failedEvents[0])).toEqual([
      'event',
      'campaignId',
      'companyId',
      'timestamp',
      'stats',
      'reason',
    ]);
    expect(events.map((e) => e.event)).toEqual([
      'campaign.started',
      'campaign.progress',
      'campaign.progress',
      'campaign.progress',
      'campaign.failed',
    ]);
  });

  it('an instance that disconnects gives one notice per incident, however often the engine sees it', async () => {
    const company = await TestCompany.register(t.http);
    const path = `/disconnect/${company.id}`;
    await subscribe(company, path);
    const gw = connectedInstance(fake);
    const noticePhone = '5511999995555';
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts: phones(4, 200),
            intervalMinSeconds: 1,
            intervalMaxSeconds: 1,
            notificationPhone: noticePhone,
          }),
        )
        .expect(200)
    ).body;
    await fake.waitForSent(fake.sent.length + 1);

    // Incident 1: the engine meets the closed instance four times (forced rechecks).
    fake.setState(gw.instance, 'close');
    await seeDisconnectedTimes(c.id, gw.instance, noticePhone, 4);
    const firstIncident = await notices(company.id);
    expect(firstIncident.map((n) => n.reason)).toEqual(['instance_disconnected']);
    expect(firstIncident[0].dedup_key).toMatch(new RegExp(`^campaign:${c.id}:disconnected:`));

    // It reconnects, sends on, and drops again: incident 2, again seen several times.
    fake.setState(gw.instance, 'open');
    await waitForCampaign(company, c.id, (x) => x.sentContacts >= 2);
    fake.setState(gw.instance, 'close');
    await seeDisconnectedTimes(c.id, gw.instance, noticePhone, 3);
    const secondIncident = await notices(company.id);
    expect(secondIncident.map((n) => n.reason)).toEqual([
      'instance_disconnected',
      'instance_disconnected',
    ]);
    expect(new Set(secondIncident.map((n) => n.dedup_key)).size).toBe(2);

    // Disconnected for more than 10 minutes: the campaign fails, with one notice and one event.
    await pool.query(
      `UPDATE campaigns SET disconnected_since = now() - interval '11 minutes', next_send_at = now() WHERE id = $1`,
      [c.id],
    );
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED');
    expect(failed.message).toMatch(/10 minutos/);
    expect((await notices(company.id)).map((n) => n.reason)).toEqual([
      'instance_disconnected',
      'instance_disconnected',
      'campaign_failed',
    ]);
    await receiver.waitFor(
      () => receiver.unique(path).some((r) => r.body.event === 'campaign.failed'),
      20_000,
      'campaign.failed',
    );
    const failedEvents = receiver.unique(path).filter((r) => r.body.event === 'campaign.failed');
    expect(failedEvents.map((r) => r.body.reason)).toEqual([failed.message]);
  });

  /**
   * Waits until the engine has met the closed instance `times` more times, making it recheck at
   * once instead of every 5 seconds.
   */
  async function seeDisconnectedTimes(
    campaignId: number,
    instance: string,
    noticePhone: string,
    times: number,
  ): Promise<void> {
    await until(
      async () =>
        (await pool.query(`SELECT disconnected_since FROM campaigns WHERE id = $1`, [campaignId]))
          .rows[0].disconnected_since as Date | null,
      (since) => since !== null,
      20_000,
      'the disconnection to be recorded',
    );
    for (let i = 1; i < times; i += 1) {
      const attempts = contactSendAttempts(instance, noticePhone);
      await pool.query(`UPDATE campaigns SET next_send_at = now() WHERE id = $1`, [campaignId]);
      await until(
        () => Promise.resolve(contactSendAttempts(instance, noticePhone)),
        (n) => n > attempts,
        20_000,
        'another send attempt on the closed instance',
      );
    }
  }
});
