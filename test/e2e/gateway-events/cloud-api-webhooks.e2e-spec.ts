import { Metrics } from '../../../src/common/metrics/metrics';
import { AWAITS_THE_FEED } from '../../../src/modules/campaigns/infrastructure/system-contacts-feed.sql';
import { phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import {
  CloudNumber,
  completedCloudCampaign,
  inboundText,
  messagesChange,
  sendWebhook,
  status,
  verificationRequest,
  webhookBody,
} from '../../support/fake-graph-api/webhooks';
import { trackedConfig } from '../../support/gateway-events';
import { samplesOf, total } from '../../support/prometheus';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/**
 * Meta's webhooks at a Cloud API configuration's events route: verification, signatures over
 * the raw body, statuses feeding the receipts, uncertain sends settled by
 * biz_opaque_callback_data, people's messages, and routing by phone_number_id. The campaigns
 * are sent through the fake Evolution API and their configuration then made a Cloud API one,
 * so that their contacts hold real message ids (the Cloud API's send is another branch's).
 */
describe('Meta’s webhooks for a Cloud API configuration', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  const cloudCampaign = (
    company: TestCompany,
    contacts: Array<{ phoneNumber: string; name: string }>,
  ) => completedCloudCampaign(t.app, fake, company, contacts);

  /** The campaign's last contact as a send whose answer was lost: UNCERTAIN, next look in 1 h. */
  async function lastSendUncertain(campaignId: number): Promise<string> {
    const { rows } = await db().query<{ id: string }>(
      `UPDATE campaign_contacts SET status = 'UNCERTAIN', gateway_message_id = NULL,
              sent_at = NULL, reconcile_at = now() + interval '1 hour', reconcile_attempts = 0
        WHERE id = (SELECT max(id) FROM campaign_contacts WHERE campaign_id = $1) RETURNING id`,
      [campaignId],
    );
    return rows[0].id;
  }

  /** The number's statuses, posted as Meta does (signed). */
  function postStatuses(cloud: CloudNumber, statuses: Array<Record<string, unknown>>) {
    const body = webhookBody(cloud.businessAccountId, [messagesChange(cloud, { statuses })]);
    return sendWebhook(t.http, cloud.id, body, cloud.appSecret);
  }

  async function applied(configId: number): Promise<void> {
    await until(
      () => countRows('gateway_events', 'gateway_config_id = $1 AND failed_at IS NULL', [configId]),
      (n) => n === 0,
    );
  }

  async function refusals(reason: string): Promise<number> {
    const samples = samplesOf(await t.app.get(Metrics).scrape());
    return total(samples, 'campaign_service_gateway_events_refused_total', { reason });
  }

  it('answers Meta’s verification with the challenge for the right token only', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud } = await cloudCampaign(company, phones(1, 2000));
    const ok = await verificationRequest(t.http, cloud.id, {
      'hub.mode': 'subscribe',
      'hub.verify_token': cloud.verifyToken,
      'hub.challenge': '1158201444',
    }).expect(200);
    expect(ok.text).toBe('1158201444');
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    const path = `/api/gateway-events/${cloud.id}`;
    const refused: Array<Record<string, string>> = [
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'outro', 'hub.challenge': '1' },
      { 'hub.mode': 'unsubscribe', 'hub.verify_token': cloud.verifyToken, 'hub.challenge': '1' },
      { 'hub.mode': 'subscribe', 'hub.challenge': '1' },
    ];
    for (const query of refused) {
      expectErrorBody(await verificationRequest(t.http, cloud.id, query), 403, path);
    }
    // An Evolution configuration and an unknown id answer as the route always did.
    const evolution = await trackedConfig(company, fake);
    const asked = { 'hub.mode': 'subscribe', 'hub.verify_token': cloud.verifyToken };
    expectErrorBody(await verificationRequest(t.http, evolution.id, asked), 401);
    expectErrorBody(await verificationRequest(t.http, 999_999, asked), 401);
  });

  it('refuses a missing or wrong signature with 401, applying nothing; the signed body applies', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId, wamids } = await cloudCampaign(company, phones(2, 2100));
    const body = webhookBody(cloud.businessAccountId, [
      messagesChange(cloud, { statuses: [status({ wamid: wamids[0], status: 'read' })] }),
    ]);
    const path = `/api/gateway-events/${cloud.id}`;
    const before = await countRows('gateway_events');
    const refusedBefore = await refusals('signature');
    expectErrorBody(await sendWebhook(t.http, cloud.id, body, cloud.appSecret, null), 401, path);
    expectErrorBody(await sendWebhook(t.http, cloud.id, body, 'outro-segredo'), 401, path);
    expectErrorBody(
      await sendWebhook(t.http, cloud.id, body, cloud.appSecret, 'sha256=00ff'),
      401,
      path,
    );
    expect(await countRows('gateway_events')).toBe(before);
    expect(await refusals('signature')).toBe(refusedBefore + 2);
    expect((await company.get(`/api/campaigns/${campaignId}`)).body.readContacts).toBe(0);

    const signed = await sendWebhook(t.http, cloud.id, body, cloud.appSecret).expect(200);
    expect(signed.body).toEqual({ received: true });
    const read = await waitForCampaign(company, campaignId, (c) => c.readContacts === 1);
    expect(read).toMatchObject({ deliveredContacts: 1, sentContacts: 2 });
  });

  it('refuses a signed body that is not Meta’s shape with 400 naming the field, storing nothing', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud } = await cloudCampaign(company, phones(1, 2150));
    const path = `/api/gateway-events/${cloud.id}`;
    const before = await countRows('gateway_events');
    const bad = webhookBody(cloud.businessAccountId, [
      messagesChange(cloud, { statuses: [{ id: 42, status: 'read', timestamp: 'ontem' }] }),
    ]);
    const refused = await sendWebhook(t.http, cloud.id, bad, cloud.appSecret);
    expect(expectErrorBody(refused, 400, path)).toMatch(
      /statuses\[0\]\.id=.*statuses\[0\]\.timestamp=/,
    );
    const noEntries = await sendWebhook(
      t.http,
      cloud.id,
      { object: 'whatsapp_business_account' },
      cloud.appSecret,
    );
    expect(expectErrorBody(noEntries, 400, path)).toContain('entry=');
    expect(await countRows('gateway_events')).toBe(before);
  });

  it('feeds delivered, read and failed statuses to the receipts, once, in any order and again', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId, wamids } = await cloudCampaign(company, phones(3, 2200));
    const at = (seconds: number) => new Date(Date.now() - 60_000 + seconds * 1000);
    // Out of order: read before delivered and sent; the failure of another message too.
    const batch = webhookBody(cloud.businessAccountId, [
      messagesChange(cloud, {
        statuses: [
          status({ wamid: wamids[0], status: 'read', at: at(3) }),
          status({
            wamid: wamids[0],
            status: 'delivered',
            at: at(2),
            pricing: { billable: true, category: 'marketing' },
          }),
          status({ wamid: wamids[0], status: 'sent', at: at(1) }),
          status({ wamid: wamids[1], status: 'delivered', at: at(2) }),
          status({
            wamid: wamids[2],
            status: 'failed',
            at: at(2),
            error: { code: 131026, title: 'Message undeliverable' },
          }),
        ],
      }),
    ]);
    await sendWebhook(t.http, cloud.id, batch, cloud.appSecret).expect(200);
    const done = await waitForCampaign(company, campaignId, (c) => c.failedContacts === 1);
    await applied(cloud.id);
    expect(done).toMatchObject({ sentContacts: 2, deliveredContacts: 2, readContacts: 1 });
    const { rows } = await db().query(
      `SELECT status, failure_kind, failure_reason FROM campaign_contacts
        WHERE campaign_id = $1 AND gateway_message_id = $2`,
      [campaignId, wamids[2]],
    );
    expect(rows[0]).toMatchObject({ status: 'FAILED', failure_kind: 'undeliverable' });
    expect(rows[0].failure_reason).toContain('131026: Message undeliverable');

    // The SYSTEM-contacts feed copies each SENT contact, once, in the background: let it have
    // done so, so that the only writer left to catch is the replay.
    await until(
      () =>
        countRows('campaign_contacts c', `campaign_id = $1 AND ${AWAITS_THE_FEED}`, [campaignId]),
      (n) => n === 0,
    );
    const versions = () =>
      db().query(
        // The order of cloudCampaign's wamids.
        `SELECT id, xmin::text AS version, billed_category FROM campaign_contacts
          WHERE campaign_id = $1 ORDER BY gateway_message_id`,
        [campaignId],
      );
    const first = (await versions()).rows;
    expect(first.map((row) => row.billed_category)).toEqual(['marketing', null, null]);

    // Meta delivers again: nothing moves, and no contact is even written again.
    await sendWebhook(t.http, cloud.id, batch, cloud.appSecret).expect(200);
    await applied(cloud.id);
    expect((await company.get(`/api/campaigns/${campaignId}`)).body).toMatchObject({
      sentContacts: 2,
      failedContacts: 1,
      deliveredContacts: 2,
      readContacts: 1,
    });
    expect((await versions()).rows).toEqual(first);
    // A refusal through the Cloud API does not lock the number for reaching out.
    const lock = await db().query(`SELECT reachout_lock_scope FROM gateway_configs WHERE id = $1`, [
      cloud.id,
    ]);
    expect(lock.rows[0].reachout_lock_scope).toBeNull();
  });

  it('fails a refused message with the kind its code proves, and takes it back when it is delivered after all', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId, wamids } = await cloudCampaign(company, phones(4, 2250));
    const failed = (wamid: string, code: number, title: string) =>
      status({ wamid, status: 'failed', error: { code, title } });
    const batch = webhookBody(cloud.businessAccountId, [
      messagesChange(cloud, {
        statuses: [
          failed(wamids[0], 131047, 'Re-engagement message'),
          failed(
            wamids[1],
            131049,
            'Message not delivered to maintain healthy ecosystem engagement',
          ),
          failed(wamids[2], 131000, 'Something went wrong'),
          failed(wamids[3], 130472, "User's number is part of an experiment"),
        ],
      }),
    ]);
    await sendWebhook(t.http, cloud.id, batch, cloud.appSecret).expect(200);
    await waitForCampaign(company, campaignId, (c) => c.failedContacts === 4);
    const kinds = async (): Promise<Array<string | null>> =>
      (
        await db().query<{ failure_kind: string | null }>(
          // The order of cloudCampaign's wamids.
          `SELECT failure_kind FROM campaign_contacts WHERE campaign_id = $1
            ORDER BY gateway_message_id`,
          [campaignId],
        )
      ).rows.map((row) => row.failure_kind);
    expect(await kinds()).toEqual([
      'reengagement_required',
      'marketing_limit',
      'not_delivered',
      'undeliverable',
    ]);

    const late = webhookBody(cloud.businessAccountId, [
      messagesChange(cloud, { statuses: [status({ wamid: wamids[1], status: 'delivered' })] }),
    ]);
    await sendWebhook(t.http, cloud.id, late, cloud.appSecret).expect(200);
    const after = await waitForCampaign(company, campaignId, (c) => c.failedContacts === 3);
    expect(after).toMatchObject({ sentContacts: 1, deliveredContacts: 1 });
    expect(await kinds()).toEqual([
      'reengagement_required',
      null,
      'not_delivered',
      'undeliverable',
    ]);
  });

  it('settles an uncertain send as SENT with the first status that names its contact, never twice', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId } = await cloudCampaign(company, phones(2, 2300));
    // The second contact's send outlived its answer.
    const contactId = await lastSendUncertain(campaignId);
    await db().query(`UPDATE campaigns SET sent_contacts = sent_contacts - 1 WHERE id = $1`, [
      campaignId,
    ]);
    const first = 'wamid.HBgLNTUxMTk4ODAwMjMwMRUCABEYEjFBQ0E5RTBGMkY0RkQ2QjFCAA==';
    const later = 'wamid.HBgLNTUxMTk4ODAwMjMwMRUCABEYEjk5OTk5OTk5OTk5OTk5OTk5AA==';
    await postStatuses(cloud, [
      status({
        wamid: first,
        status: 'delivered',
        callbackData: contactId,
        pricing: { billable: true, category: 'utility' },
      }),
    ]).expect(200);
    const settled = await waitForCampaign(company, campaignId, (c) => c.sentContacts === 2);
    expect(settled.deliveredContacts).toBe(1);
    // The status that settled it is its receipt and its charge, as for any sent contact.
    const billed = await db().query(
      `SELECT billed_category, delivered_at IS NOT NULL AS delivered FROM campaign_contacts
        WHERE id = $1`,
      [contactId],
    );
    expect(billed.rows[0]).toEqual({ billed_category: 'utility', delivered: true });
    await postStatuses(cloud, [
      status({ wamid: later, status: 'sent', callbackData: contactId }),
    ]).expect(200);
    // Its message id matches no contact: the receipt waits for one, after a first try.
    await until(
      () =>
        db().query(`SELECT attempts FROM gateway_events WHERE gateway_config_id = $1`, [cloud.id]),
      (result) => result.rows.every((row: { attempts: number }) => row.attempts > 0),
    );
    const contact = await db().query(
      `SELECT status, gateway_message_id FROM campaign_contacts WHERE id = $1`,
      [contactId],
    );
    expect(contact.rows[0]).toEqual({ status: 'SENT', gateway_message_id: first });
    expect((await company.get(`/api/campaigns/${campaignId}`)).body.sentContacts).toBe(2);
  });

  it('completes an ACTIVE campaign at once when a status settles its last unconfirmed send', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId } = await cloudCampaign(company, phones(2, 2350));
    // As the engine leaves it: ACTIVE, its last send's answer lost, its next look an hour away.
    const contactId = await lastSendUncertain(campaignId);
    await db().query(
      `UPDATE campaigns SET status = 'ACTIVE', completed_at = NULL, sent_contacts = sent_contacts - 1,
              next_send_at = now() + interval '1 hour'
        WHERE id = $1`,
      [campaignId],
    );
    await postStatuses(cloud, [
      status({ wamid: 'wamid.SETTLED2350', status: 'sent', callbackData: contactId }),
    ]).expect(200);
    const done = await waitForCampaign(company, campaignId, (c) => c.status === 'COMPLETED');
    expect(done.sentContacts).toBe(2);
  });

  it('feeds people’s messages to replies, opt-out and the 24-hour window', async () => {
    const company = await TestCompany.register(t.http);
    const contacts = phones(2, 2400);
    const { cloud, campaignId } = await cloudCampaign(company, contacts);
    await sendWebhook(
      t.http,
      cloud.id,
      webhookBody(cloud.businessAccountId, [
        messagesChange(cloud, {
          messages: [
            // Meta's times are whole seconds: these are read as the receipt's time, after the send.
            inboundText(contacts[0].phoneNumber, 'Quero saber mais', new Date(Date.now() + 2000)),
            inboundText(contacts[1].phoneNumber, 'Sair', new Date(Date.now() + 2000)),
          ],
        }),
      ]),
      cloud.appSecret,
    ).expect(200);
    const answered = await waitForCampaign(
      company,
      campaignId,
      (c) => c.repliedContacts === 2 && c.optedOutContacts === 1,
    );
    expect(answered.sentContacts).toBe(2);
    expect(await countRows('contact_conversations', 'gateway_config_id = $1', [cloud.id])).toBe(2);
    expect(
      await countRows('blocked_contacts', 'company_id = $1 AND phone_number = $2', [
        company.id,
        contacts[1].phoneNumber,
      ]),
    ).toBe(1);
  });

  it('routes a change to the company’s configuration of its phone_number_id, never another company’s', async () => {
    const company = await TestCompany.register(t.http);
    const a = await cloudCampaign(company, phones(1, 2500));
    const b = await cloudCampaign(company, phones(1, 2510));
    const other = await TestCompany.register(t.http);
    const foreign = await cloudCampaign(other, phones(1, 2520));
    const unroutedBefore = await refusals('unrouted');
    // Both posted to A's route, signed with A's app secret: one names B's number, one the other company's.
    await sendWebhook(
      t.http,
      a.cloud.id,
      webhookBody(a.cloud.businessAccountId, [
        messagesChange(b.cloud, { statuses: [status({ wamid: b.wamids[0], status: 'read' })] }),
        messagesChange(foreign.cloud, {
          statuses: [status({ wamid: foreign.wamids[0], status: 'read' })],
        }),
      ]),
      a.cloud.appSecret,
    ).expect(200);
    await waitForCampaign(company, b.campaignId, (c) => c.readContacts === 1);
    await applied(b.cloud.id);
    expect(await refusals('unrouted')).toBe(unroutedBefore + 1);
    expect((await company.get(`/api/campaigns/${a.campaignId}`)).body.readContacts).toBe(0);
    expect((await other.get(`/api/campaigns/${foreign.campaignId}`)).body.readContacts).toBe(0);
    expect(await countRows('gateway_events', 'company_id = $1', [other.id])).toBe(0);
  });
});
