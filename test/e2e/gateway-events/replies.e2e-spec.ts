import { Metrics } from '../../../src/common/metrics/metrics';
import { createWelcomeAutomation, importDatabase, runNowAndWait } from '../../support/automations';
import { phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { samplesOf, total } from '../../support/prometheus';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/**
 * The people's answers: a message from a contact within the reply window after their campaign
 * message counts once, on the latest campaign that messaged them, with a `contact.replied`
 * event that carries the text only when the company asks for it. The fake gateway posts the
 * messages as Evolution API v2.3.6 builds them, `@lid` senders included.
 */
describe('replies to a campaign', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  async function replyEvents(companyId: number): Promise<Array<Record<string, unknown>>> {
    const { rows } = await db().query(
      `SELECT payload FROM outbox_events WHERE company_id = $1 AND event_type = 'contact.replied' ORDER BY id`,
      [companyId],
    );
    return rows.map((row: { payload: Record<string, unknown> }) => row.payload);
  }

  /** Every event the gateway posted was applied. */
  async function applied(configId: number): Promise<void> {
    await until(
      async () =>
        (
          await db().query(
            `SELECT count(*)::int AS n FROM gateway_events WHERE gateway_config_id = $1 AND failed_at IS NULL`,
            [configId],
          )
        ).rows[0].n,
      (n) => n === 0,
    );
  }

  it('counts each contact’s reply once, from a phone JID or an @lid with its phone JID, with the text only when asked', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const contacts = phones(4, 1000);
    const campaign = await startCampaign(company, config.id, { contacts });
    await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');

    await fake.emitInbound(config.instance, {
      from: contacts[0].phoneNumber,
      text: 'Tenho interesse',
    });
    await fake.emitInbound(config.instance, {
      from: contacts[0].phoneNumber,
      text: 'Pode me ligar?',
    });
    await fake.emitInbound(config.instance, {
      from: contacts[1].phoneNumber,
      lid: '208937123456789',
      kind: 'image',
      caption: 'Esta aqui?',
    });
    const counted = await waitForCampaign(company, campaign.id, (x) => x.repliedContacts === 2);
    await applied(config.id);
    expect((await company.get(`/api/campaigns/${campaign.id}`)).body).toMatchObject({
      repliedContacts: 2,
      replyRate: 50,
      sentContacts: 4,
    });
    expect(counted.replyRate).toBe(50);
    const listed = (await company.get(`/api/campaigns/${campaign.id}/contacts`).expect(200)).body;
    expect(listed.map((c: { repliedAt?: string }) => typeof c.repliedAt)).toEqual([
      'string',
      'string',
      'undefined',
      'undefined',
    ]);
    const events = await replyEvents(company.id);
    expect(events).toEqual([
      expect.objectContaining({
        event: 'contact.replied',
        campaignId: campaign.id,
        phoneNumber: contacts[0].phoneNumber,
      }),
      expect.objectContaining({
        event: 'contact.replied',
        campaignId: campaign.id,
        phoneNumber: contacts[1].phoneNumber,
      }),
    ]);
    expect(events.every((e) => !('text' in e))).toBe(true);

    const settings = await company
      .patch(`/api/companies/${company.id}/settings`, { includeReplyText: true })
      .expect(200);
    expect(settings.body.includeReplyText).toBe(true);
    await fake.emitInbound(config.instance, {
      from: contacts[2].phoneNumber,
      text: 'Quanto custa?',
    });
    await waitForCampaign(company, campaign.id, (x) => x.repliedContacts === 3);
    expect((await replyEvents(company.id))[2]).toMatchObject({
      phoneNumber: contacts[2].phoneNumber,
      text: 'Quanto custa?',
    });
  });

  it('counts only within the window after the message, on the latest campaign that messaged the person', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    await company
      .patch(`/api/companies/${company.id}/settings`, {
        reachOut: {
          lockRefusals: 3,
          lockSample: 20,
          lockCooldownHours: 24,
          warmDays: 28,
          replyWindowHours: 1,
        },
      })
      .expect(200);
    const [person, late] = phones(2, 1100);
    const older = await startCampaign(company, config.id, { contacts: [person, late] });
    await waitForCampaign(company, older.id, (x) => x.status === 'COMPLETED');
    const newer = await startCampaign(company, config.id, { contacts: [person] });
    await waitForCampaign(company, newer.id, (x) => x.status === 'COMPLETED');
    // The older message to `late` went out two hours ago: past the one-hour window.
    await db().query(
      `UPDATE campaign_contacts SET sent_at = now() - interval '2 hours' WHERE campaign_id = $1 AND phone_number = $2`,
      [older.id, late.phoneNumber],
    );
    // A message written before the campaign's is no answer to it.
    await fake.emitInbound(config.instance, {
      from: person.phoneNumber,
      text: 'Bom dia',
      dateTime: new Date(Date.now() - 3_600_000),
    });
    await fake.emitInbound(config.instance, { from: late.phoneNumber, text: 'Oi' });
    await fake.emitInbound(config.instance, { from: person.phoneNumber, text: 'Obrigado!' });
    await waitForCampaign(company, newer.id, (x) => x.repliedContacts === 1);
    await applied(config.id);
    expect((await company.get(`/api/campaigns/${older.id}`)).body.repliedContacts).toBe(0);
    expect((await replyEvents(company.id)).map((e) => e.campaignId)).toEqual([newer.id]);
  });

  it('counts an opt-out word as a reply and an opt-out, and an @lid it cannot map in a metric', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const [person] = phones(1, 1200);
    const campaign = await startCampaign(company, config.id, { contacts: [person] });
    await waitForCampaign(company, campaign.id, (x) => x.status === 'COMPLETED');
    const unmapped = () =>
      t.app
        .get(Metrics)
        .scrape()
        .then((text) =>
          total(samplesOf(text), 'campaign_service_inbound_unmapped_senders_total', {}),
        );
    const before = await unmapped();
    // Only the sender's LID: no phone-number JID to map it to.
    await fake.emit(config.instance, 'messages.upsert', {
      key: {
        remoteJid: '208937000000001@lid',
        fromMe: false,
        id: 'A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6',
        addressingMode: 'lid',
      },
      message: { conversation: 'Oi' },
      messageType: 'conversation',
      messageTimestamp: Math.floor(Date.now() / 1000),
    });
    await fake.emitInbound(config.instance, { from: person.phoneNumber, text: 'Sair' });
    const done = await waitForCampaign(company, campaign.id, (x) => x.optedOutContacts === 1);
    expect(done.repliedContacts).toBe(1);
    await applied(config.id);
    expect(await unmapped()).toBe(before + 1);
  });

  it('counts a reply on the automation run that messaged the person', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const database = await importDatabase(company, [
      { telefone: '11987671001', nome: 'Ana' },
      { telefone: '11987671002', nome: 'Bruno' },
    ]);
    const automation = await createWelcomeAutomation(company, database.id, config.id);
    const run = await runNowAndWait(company, automation.id);
    expect(run).toMatchObject({ status: 'COMPLETED', sent: 2, replied: 0 });
    await fake.emitInbound(config.instance, { from: '5511987671002', text: 'Obrigada!' });
    const replied = await until(
      async () => (await company.get(`/api/automations/${automation.id}/runs`).expect(200)).body[0],
      (latest) => latest.replied === 1,
    );
    expect(replied).toMatchObject({ id: run.id, sent: 2 });
    expect(await replyEvents(company.id)).toEqual([
      expect.objectContaining({
        campaignId: null,
        automationRunId: run.id,
        phoneNumber: '5511987671002',
      }),
    ]);
  });

  it('refuses reply and lock settings out of bounds, changing nothing', async () => {
    const company = await TestCompany.register(t.http);
    const path = `/api/companies/${company.id}/settings`;
    const good = {
      lockRefusals: 3,
      lockSample: 20,
      lockCooldownHours: 24,
      warmDays: 28,
      replyWindowHours: 72,
    };
    for (const [reachOut, field] of [
      [{ ...good, lockRefusals: 0 }, 'reachOut.lockRefusals'],
      [{ ...good, lockSample: 501 }, 'reachOut.lockSample'],
      [{ ...good, lockCooldownHours: 0.5 }, 'reachOut.lockCooldownHours'],
      [{ ...good, warmDays: '28' }, 'reachOut.warmDays'],
      [{ ...good, replyWindowHours: 721 }, 'reachOut.replyWindowHours'],
      [{ lockRefusals: 3 }, 'reachOut.lockSample'],
      ['sim', 'reachOut'],
    ] as const) {
      const response = await company.patch(path, { reachOut });
      expect(expectErrorBody(response, 400, path)).toContain(`${field}=`);
    }
    const refused = await company.patch(path, { includeReplyText: 'yes' });
    expect(expectErrorBody(refused, 400, path)).toContain('includeReplyText=');
    const settings = (await company.get(path).expect(200)).body;
    expect(settings).toMatchObject({ reachOut: good, includeReplyText: false });
    const other = await TestCompany.register(t.http);
    expectErrorBody(await other.patch(path, { includeReplyText: true }), 403, path);
  });
});
