import { phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import {
  CloudNumber,
  makeCloudNumber,
  messagesChange,
  qualityChange,
  sendWebhook,
  status,
  templateStatusChange,
  webhookBody,
} from '../../support/fake-graph-api/webhooks';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

const PROMO = { name: 'promo_novembro', language: 'pt_BR' };
/** One message, then an hour's wait: the campaign stays ACTIVE for the test. */
const SLOW = { intervalMinSeconds: 3600, intervalMaxSeconds: 3600 };

/**
 * What Meta says of a business account beyond messages: a template paused or disabled pauses
 * the ACTIVE campaigns that send it, a RED quality pauses the number's ACTIVE campaigns, both
 * recorded; in any order and again, and only within the company the route belongs to.
 */
describe('Meta’s template and quality webhooks', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  /** An ACTIVE campaign that sends `template`, on a configuration then made a Cloud API one. */
  async function activeTemplateCampaign(
    company: TestCompany,
    template: { name: string; language: string } | null,
    cloudOptions: { businessAccountId?: string; phoneNumberId?: string } = {},
  ): Promise<{ cloud: CloudNumber; campaignId: number }> {
    const config = await trackedConfig(company, fake);
    const campaign = await startCampaign(company, config.id, {
      contacts: phones(2, 3000),
      ...SLOW,
    });
    await waitForCampaign(company, campaign.id, (c) => c.sentContacts === 1);
    await db().query(`UPDATE campaigns SET template = $2 WHERE id = $1`, [
      campaign.id,
      template && { ...template, bodyParameters: ['{PrimeiroNome}'], headerMedia: null },
    ]);
    const cloud = await makeCloudNumber(
      t.app,
      { id: config.id, companyId: company.id },
      cloudOptions,
    );
    return { cloud, campaignId: campaign.id };
  }

  async function listTemplate(cloud: CloudNumber, status: string, refreshedAgoSeconds = 3600) {
    await db().query(
      `INSERT INTO gateway_templates (gateway_config_id, company_id, meta_id, name, language, category,
              status, components, body_parameters, header_parameters, refreshed_at)
       VALUES ($1, $2, '1234567890123456', $3, $4, 'MARKETING', $5, '[]', 1, 0,
               now() - make_interval(secs => $6))`,
      [cloud.id, cloud.companyId, PROMO.name, PROMO.language, status, refreshedAgoSeconds],
    );
  }

  async function templateStatus(cloud: CloudNumber): Promise<string> {
    const { rows } = await db().query(
      `SELECT status FROM gateway_templates WHERE gateway_config_id = $1 AND name = $2`,
      [cloud.id, PROMO.name],
    );
    return rows[0].status;
  }

  async function applied(companyId: number): Promise<void> {
    await until(
      () => countRows('gateway_events', 'company_id = $1 AND failed_at IS NULL', [companyId]),
      (n) => n === 0,
    );
  }

  async function pausedEvents(campaignId: number): Promise<number> {
    return countRows('outbox_events', `campaign_id = $1 AND event_type = 'campaign.paused'`, [
      campaignId,
    ]);
  }

  it('pauses the ACTIVE campaigns that send a template Meta paused, with the reason, and records it', async () => {
    const company = await TestCompany.register(t.http);
    const sending = await activeTemplateCampaign(company, PROMO);
    const other = await activeTemplateCampaign(
      company,
      { ...PROMO, name: 'outro_template' },
      {
        businessAccountId: sending.cloud.businessAccountId,
      },
    );
    await listTemplate(sending.cloud, 'APPROVED');
    const cloud = sending.cloud;
    const paused = webhookBody(cloud.businessAccountId, [templateStatusChange(PROMO, 'PAUSED')]);
    await sendWebhook(t.http, cloud.id, paused, cloud.appSecret).expect(200);
    const campaign = await waitForCampaign(
      company,
      sending.campaignId,
      (c) => c.status === 'PAUSED',
    );
    expect(campaign.pauseReason).toContain('promo_novembro (pt_BR) foi pausado pela Meta');
    expect(await templateStatus(cloud)).toBe('PAUSED');
    expect(await pausedEvents(sending.campaignId)).toBe(1);
    await applied(company.id);
    expect((await company.get(`/api/campaigns/${other.campaignId}`)).body.status).toBe('ACTIVE');

    // Again, and an APPROVED older than what is recorded: nothing more, nothing back.
    await sendWebhook(t.http, cloud.id, paused, cloud.appSecret).expect(200);
    const older = webhookBody(
      cloud.businessAccountId,
      [templateStatusChange(PROMO, 'APPROVED')],
      new Date(Date.now() - 2 * 3_600_000),
    );
    await sendWebhook(t.http, cloud.id, older, cloud.appSecret).expect(200);
    await applied(company.id);
    expect(await templateStatus(cloud)).toBe('PAUSED');
    expect(await pausedEvents(sending.campaignId)).toBe(1);
  });

  it('records an APPROVED template without pausing anything', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId } = await activeTemplateCampaign(company, PROMO);
    await listTemplate(cloud, 'PAUSED');
    const approved = webhookBody(cloud.businessAccountId, [
      templateStatusChange(PROMO, 'APPROVED'),
    ]);
    await sendWebhook(t.http, cloud.id, approved, cloud.appSecret).expect(200);
    await until(
      () => templateStatus(cloud),
      (state) => state === 'APPROVED',
    );
    await applied(company.id);
    expect((await company.get(`/api/campaigns/${campaignId}`)).body.status).toBe('ACTIVE');
  });

  it('records quality and tier, and pauses the number’s ACTIVE campaigns when Meta flags it RED', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId } = await activeTemplateCampaign(company, PROMO);
    const upgrade = webhookBody(cloud.businessAccountId, [
      qualityChange(cloud, 'UPGRADE', 'TIER_10K'),
    ]);
    await sendWebhook(t.http, cloud.id, upgrade, cloud.appSecret).expect(200);
    await until(
      async () =>
        (
          await db().query(`SELECT messaging_limit_tier FROM gateway_configs WHERE id = $1`, [
            cloud.id,
          ])
        ).rows[0].messaging_limit_tier,
      (tier) => tier === 'TIER_10K',
    );
    expect((await company.get(`/api/campaigns/${campaignId}`)).body.status).toBe('ACTIVE');

    const flagged = webhookBody(cloud.businessAccountId, [
      qualityChange(cloud, 'FLAGGED', 'TIER_10K'),
    ]);
    await sendWebhook(t.http, cloud.id, flagged, cloud.appSecret).expect(200);
    const campaign = await waitForCampaign(company, campaignId, (c) => c.status === 'PAUSED');
    expect(campaign.pauseReason).toContain('qualidade do número para vermelha (RED)');
    const { rows } = await db().query(
      `SELECT quality_rating, messaging_limit_tier FROM gateway_configs WHERE id = $1`,
      [cloud.id],
    );
    expect(rows[0]).toEqual({ quality_rating: 'RED', messaging_limit_tier: 'TIER_10K' });
    expect(await pausedEvents(campaignId)).toBe(1);
  });

  it('pauses the number’s ACTIVE campaigns when a failed status proves its account cannot send', async () => {
    const company = await TestCompany.register(t.http);
    const { cloud, campaignId } = await activeTemplateCampaign(company, PROMO);
    const { rows: sent } = await db().query<{ id: string }>(
      `SELECT gateway_message_id AS id FROM campaign_contacts
        WHERE campaign_id = $1 AND gateway_message_id IS NOT NULL`,
      [campaignId],
    );
    const failed = (code: number, title: string) =>
      webhookBody(cloud.businessAccountId, [
        messagesChange(cloud, {
          statuses: [status({ wamid: sent[0].id, status: 'failed', error: { code, title } })],
        }),
      ]);
    // A person's reason fails the contact and leaves the campaign sending.
    await sendWebhook(
      t.http,
      cloud.id,
      failed(131026, 'Message undeliverable'),
      cloud.appSecret,
    ).expect(200);
    await waitForCampaign(company, campaignId, (c) => c.failedContacts === 1);
    expect((await company.get(`/api/campaigns/${campaignId}`)).body.status).toBe('ACTIVE');

    await sendWebhook(
      t.http,
      cloud.id,
      failed(131042, 'Business eligibility payment issue'),
      cloud.appSecret,
    ).expect(200);
    const paused = await waitForCampaign(company, campaignId, (c) => c.status === 'PAUSED');
    expect(paused.pauseReason).toBe(
      'A conta da API oficial não pode enviar: código 131042: Business eligibility payment issue',
    );
    expect(await pausedEvents(campaignId)).toBe(1);
  });

  it('changes only the company of the route: another company’s number and campaigns are untouched', async () => {
    const company = await TestCompany.register(t.http);
    const ours = await activeTemplateCampaign(company, PROMO);
    const other = await TestCompany.register(t.http);
    // The other company's configuration on the same business account and display number.
    const theirs = await activeTemplateCampaign(other, PROMO, {
      businessAccountId: ours.cloud.businessAccountId,
    });
    await db().query(`UPDATE gateway_configs SET display_phone_number = $2 WHERE id = $1`, [
      theirs.cloud.id,
      ours.cloud.displayPhoneNumber,
    ]);
    await sendWebhook(
      t.http,
      ours.cloud.id,
      webhookBody(ours.cloud.businessAccountId, [
        templateStatusChange(PROMO, 'DISABLED'),
        qualityChange(ours.cloud, 'FLAGGED'),
      ]),
      ours.cloud.appSecret,
    ).expect(200);
    await waitForCampaign(company, ours.campaignId, (c) => c.status === 'PAUSED');
    await applied(company.id);
    expect((await other.get(`/api/campaigns/${theirs.campaignId}`)).body.status).toBe('ACTIVE');
    const { rows } = await db().query(`SELECT quality_rating FROM gateway_configs WHERE id = $1`, [
      theirs.cloud.id,
    ]);
    expect(rows[0].quality_rating).toBe('GREEN');
  });
});
