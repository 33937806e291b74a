import { createWelcomeAutomation, importDatabase, runNowAndWait } from '../../support/automations';
import {
  campaignBody,
  connectedConfig,
  connectedInstance,
  phones,
  waitForCampaign,
} from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { FakeInstanceState } from '../../support/fake-evolution-api';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

interface ContactRow {
  phone_number: string;
  status: string;
  retry_count: number;
}

async function contactRows(campaignId: number): Promise<ContactRow[]> {
  const { rows } = await db().query(
    `SELECT phone_number, status, retry_count FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

/** The engine looks again every 5 s; the test makes the next look due now instead of waiting. */
async function dueNow(campaignId: number): Promise<void> {
  await db().query(`UPDATE campaigns SET next_send_at = now() WHERE id = $1`, [campaignId]);
}

async function eventTypes(campaignId: number): Promise<string[]> {
  const { rows } = await db().query(
    `SELECT event_type FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows.map((row: { event_type: string }) => row.event_type);
}

/** The look under way is over: the engine gave the campaign back and scheduled its next one. */
async function lookOver(campaignId: number): Promise<boolean> {
  const { rows } = await db().query(
    `SELECT locked_by IS NULL AND next_send_at > now() AS over FROM campaigns WHERE id = $1`,
    [campaignId],
  );
  return rows[0].over;
}

/** Until `check` holds; `what` names it if it never does. */
async function waitUntil(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  await until(check, (holds) => holds, 15_000, what);
}

/**
 * A campaign on an instance that cannot send, answered as Evolution API v2.3.6 answered when
 * run for real (docs/ARCHITECTURE.md, "Gateway outcomes"): no contact is burnt, the campaign
 * says what it waits for, and everyone is sent once when the instance opens.
 */
describe('a campaign on an instance that cannot send', () => {
  const { t, fake } = useE2eFixture({ noRefusals: true, resetFake: true });

  // Each test's instance is its own: campaigns of another test never blur its counts.
  const sendRequests = (instance: string): number =>
    fake.requests.filter((r) => r.instance === instance && r.path.startsWith('/message/')).length;
  const sentThrough = (instance: string): string[] =>
    fake.sent.filter((s) => s.instance === instance).map((s) => s.number);
  const reconciliations = (instance: string): number =>
    fake.requests.filter((r) => r.instance === instance && r.path.startsWith('/chat/findMessages'))
      .length;

  /**
   * Creation refuses an instance that is not open: the campaign is scheduled while it is, the
   * instance is put in `state` knowing the numbers of `known` (its is-on-WhatsApp cache), and
   * the campaign made due now, so nothing goes out before the instance breaks.
   */
  async function campaignOn(
    company: TestCompany,
    gw: { instance: string; apiKey: string },
    state: FakeInstanceState,
    contacts: Array<{ phoneNumber: string }>,
    known: Array<{ phoneNumber: string }>,
  ): Promise<Record<string, any>> {
    const body = campaignBody(fake, gw, { contacts, scheduledFor: '2099-01-01T10:00:00' });
    const c = (await company.post('/api/campaigns', body).expect(200)).body;
    known.forEach((contact) => fake.cacheNumber(gw.instance, contact.phoneNumber));
    fake.setState(gw.instance, state);
    await db().query(`UPDATE campaigns SET scheduled_for = now() WHERE id = $1`, [c.id]);
    return c;
  }

  /** A welcome automation of two records (Ana 5511987680001, Bruno …002) on its own instance. */
  async function welcomeAutomation(messageConfig?: Record<string, unknown>): Promise<{
    company: TestCompany;
    gw: { instance: string; apiKey: string };
    automation: { id: number };
  }> {
    const company = await TestCompany.register(t.http);
    const { id: configId, gw } = await connectedConfig(company, fake);
    const database = await importDatabase(company, [
      { telefone: '11987680001', nome: 'Ana' },
      { telefone: '11987680002', nome: 'Bruno' },
    ]);
    const automation = await createWelcomeAutomation(company, database.id, configId, messageConfig);
    return { company, gw, automation };
  }

  /**
   * Creates a campaign on an instance in `state` that knows the numbers `knows` marks, checks it
   * waits with `reason` and burns nothing over two looks, then lets the instance open.
   */
  async function waitsThenSendsEveryone(
    state: FakeInstanceState,
    knows: boolean[],
    reason: string,
    instanceState: string,
  ): Promise<void> {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(knows.length, 7_000);
    const known = contacts.filter((_contact, i) => knows[i]);
    const c = await campaignOn(company, gw, state, contacts, known);

    const waiting = await waitForCampaign(company, c.id, (x) => x.waitingReason === reason, 15_000);
    expect(waiting).toMatchObject({ status: 'ACTIVE', sentContacts: 0, failedContacts: 0 });
    await dueNow(c.id);
    await waitUntil(() => sendRequests(gw.instance) >= 2, 'the second look at the instance');
    await waitUntil(() => lookOver(c.id), 'the end of the second look');
    const still = await waitForCampaign(company, c.id, (x) => x.waitingReason === reason, 5_000);
    expect(still).toMatchObject({
      status: 'ACTIVE',
      sentContacts: 0,
      failedContacts: 0,
      unknownOutcomeContacts: 0,
      pendingContacts: contacts.length,
    });
    expect(await contactRows(c.id)).toEqual(
      contacts.map((contact) => ({
        phone_number: contact.phoneNumber,
        status: 'PENDING',
        retry_count: 0,
      })),
    );
    expect(reconciliations(gw.instance)).toBe(0);
    expect(sentThrough(gw.instance)).toEqual([]);
    const config = (await company.get(`/api/gateway-configs/${c.gatewayConfig.id}`).expect(200))
      .body;
    expect(config.instanceState).toBe(instanceState);

    // The instance opens: its answers are plain sends again.
    fake.reset();
    fake.setState(gw.instance, 'open');
    await dueNow(c.id);
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: contacts.length, failedContacts: 0 });
    expect(sentThrough(gw.instance).sort()).toEqual(
      contacts.map((contact) => contact.phoneNumber).sort(),
    );
    const { rows } = await db().query(`SELECT waiting_reason FROM campaigns WHERE id = $1`, [c.id]);
    expect(rows[0].waiting_reason).toBeNull();
    const reopened = (await company.get(`/api/gateway-configs/${c.gatewayConfig.id}`).expect(200))
      .body;
    expect(reopened.instanceState).toBe('open');
  }

  it('on a never-paired instance: waits INSTANCE_NOT_PAIRED, the configuration not_paired, then sends everyone once', async () => {
    // A number the instance knows answers first: it proves the instance was never paired.
    await waitsThenSendsEveryone(
      'never-paired',
      [true, false, true],
      'INSTANCE_NOT_PAIRED',
      'not_paired',
    );
  });

  it('on an instance without socket: waits INSTANCE_DISCONNECTED, the configuration close, then sends everyone once', async () => {
    await waitsThenSendsEveryone(
      'no-socket',
      [false, true, false],
      'INSTANCE_DISCONNECTED',
      'close',
    );
  });

  it('keeps saying INSTANCE_NOT_PAIRED when the next answer only says Connection Closed', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(2, 7_500);
    // The probed number's answers: less proof (a number the instance must look up), then more
    // (once it knows the number), then less (its socket opening says only Connection Closed).
    const c = await campaignOn(company, gw, 'never-paired', contacts, []);
    await waitForCampaign(company, c.id, (x) => x.waitingReason === 'INSTANCE_DISCONNECTED');
    fake.cacheNumber(gw.instance, contacts[0].phoneNumber);
    await dueNow(c.id);
    await waitForCampaign(company, c.id, (x) => x.waitingReason === 'INSTANCE_NOT_PAIRED');
    fake.setState(gw.instance, 'connecting');
    await dueNow(c.id);
    await waitUntil(() => sendRequests(gw.instance) >= 3, 'the third look at the instance');
    await waitUntil(() => lookOver(c.id), 'the end of the third look');
    const after = await waitForCampaign(company, c.id, () => true);
    expect(after).toMatchObject({ status: 'ACTIVE', waitingReason: 'INSTANCE_NOT_PAIRED' });
    expect((await contactRows(c.id)).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    await company.put(`/api/campaigns/${c.id}/cancel`).expect(200);
  });

  it('keeps not_paired on the configuration through a status check that reads close, until one reads open', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(1, 7_800);
    const c = await campaignOn(company, gw, 'never-paired', contacts, contacts);
    await waitForCampaign(company, c.id, (x) => x.waitingReason === 'INSTANCE_NOT_PAIRED');
    await company.put(`/api/campaigns/${c.id}/cancel`).expect(200);
    const configPath = `/api/gateway-configs/${c.gatewayConfig.id}`;

    fake.setState(gw.instance, 'close');
    expect((await company.get(`${configPath}/status`).expect(200)).body.state).toBe('close');
    expect((await company.get(configPath).expect(200)).body.instanceState).toBe('not_paired');

    fake.setState(gw.instance, 'open');
    expect((await company.get(`${configPath}/status`).expect(200)).body.state).toBe('open');
    expect((await company.get(configPath).expect(200)).body.instanceState).toBe('open');
  });

  it('fails after 10 minutes for the instance, saying it was never paired, its contacts still pending', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(2, 7_700);
    const c = await campaignOn(company, gw, 'never-paired', contacts, contacts.slice(0, 1));
    await waitForCampaign(company, c.id, (x) => x.waitingReason === 'INSTANCE_NOT_PAIRED');
    await db().query(
      `UPDATE campaigns SET disconnected_since = now() - interval '11 minutes', next_send_at = now()
        WHERE id = $1`,
      [c.id],
    );
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED', 15_000);
    expect(failed.message).toMatch(/10 minutos sem ser pareada/);
    expect(failed).toMatchObject({ failedContacts: 0, pendingContacts: 2 });
    expect((await contactRows(c.id)).map((r) => [r.status, r.retry_count])).toEqual([
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
  });

  it('holds an automation’s run on a never-paired instance, burning nothing, and sends it once the instance opens', async () => {
    const { company, gw, automation } = await welcomeAutomation();
    // Both numbers known to the instance, whichever the run sends first.
    fake.cacheNumber(gw.instance, '5511987680001');
    fake.cacheNumber(gw.instance, '5511987680002');
    fake.setState(gw.instance, 'never-paired');
    const run = (await company.post(`/api/automations/${automation.id}/run-now`).expect(202)).body;
    const runCampaign = async (): Promise<{ id: number; waiting_reason: string | null }> => {
      const { rows } = await db().query(
        `SELECT id, waiting_reason FROM campaigns WHERE automation_run_id = $1`,
        [run.id],
      );
      return rows[0] ?? { id: 0, waiting_reason: null };
    };
    const held = await until(
      runCampaign,
      (campaign) => campaign.waiting_reason === 'INSTANCE_NOT_PAIRED',
      15_000,
    );
    expect(held.waiting_reason).toBe('INSTANCE_NOT_PAIRED');
    expect((await contactRows(held.id)).map((r) => [r.status, r.retry_count])).toEqual([
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
    expect(reconciliations(gw.instance)).toBe(0);

    fake.reset();
    fake.setState(gw.instance, 'open');
    await dueNow(held.id);
    const finished = await until(
      async () =>
        (await company.get(`/api/automations/${automation.id}/runs`).expect(200)).body.find(
          (r: { id: string; status: string }) => r.id === run.id && r.status !== 'RUNNING',
        ),
      (found) => found !== undefined,
      30_000,
    );
    expect(finished).toMatchObject({ status: 'COMPLETED', sent: 2, failed: 0 });
    expect(sentThrough(gw.instance).sort()).toEqual(['5511987680001', '5511987680002']);
  });

  /**
   * Creation fetches a media URL's first byte, so the media is on the fake's own host (its 404
   * will do), a host the gateway cannot reach.
   */
  const mediaTheGatewayCannotFetch = (path: string): string => {
    fake.unreachableMedia(new URL(fake.url).host, 'ECONNREFUSED');
    return `${fake.url}${path}`;
  };

  it('fails an automation’s run on media the gateway cannot fetch, naming it, its contacts unsent', async () => {
    const media = mediaTheGatewayCannotFetch('/midia/boas-vindas.png');
    const { gw, company, automation } = await welcomeAutomation({
      type: 'MEDIA',
      mediaUrl: `${media}?token=segredo`,
      caption: 'Olá {PrimeiroNome}',
    });
    const run = await runNowAndWait(company, automation.id);
    expect(run).toMatchObject({ status: 'FAILED', sent: 0, failed: 0 });
    expect(run.error).toContain(media);
    expect(run.error).not.toContain('segredo');
    expect(sendRequests(gw.instance)).toBe(1);
    const { rows } = await db().query(
      `SELECT c.status, c.retry_count FROM campaign_contacts c
         JOIN campaigns k ON k.id = c.campaign_id WHERE k.automation_run_id = $1`,
      [run.id],
    );
    expect(rows).toEqual([
      { status: 'PENDING', retry_count: 0 },
      { status: 'PENDING', retry_count: 0 },
    ]);
  });

  it('pauses once, naming the media URL, when the gateway cannot fetch it, fails nobody, and sends everyone on resume', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(3, 7_600);
    const media = mediaTheGatewayCannotFetch('/midia/oferta.png');
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts,
            mediaUrl: `${media}?assinatura=segredo`,
            notificationPhone: '11999993333',
          }),
        )
        .expect(200)
    ).body;
    const paused = await waitForCampaign(company, c.id, (x) => x.status === 'PAUSED', 15_000);
    expect(paused).toMatchObject({ sentContacts: 0, failedContacts: 0, pendingContacts: 3 });
    expect(paused.pauseReason).toContain(media);
    expect(paused.pauseReason).not.toContain('ECONNREFUSED');
    expect(paused.pauseReason).not.toContain('segredo');
    expect((await contactRows(c.id)).map((r) => [r.status, r.retry_count])).toEqual([
      ['PENDING', 0],
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
    const numbers = contacts.map((contact) => contact.phoneNumber);
    const campaignRequests = (): number =>
      fake.requests.filter((r) => numbers.includes((r.body as { number?: string })?.number ?? ''))
        .length;
    expect(campaignRequests()).toBe(1);
    expect((await eventTypes(c.id)).filter((e) => e !== 'campaign.started')).toEqual([
      'campaign.paused',
    ]);
    const { rows: notices } = await db().query(
      `SELECT reason FROM notices WHERE company_id = $1 ORDER BY id`,
      [company.id],
    );
    expect(notices.map((n: { reason: string }) => n.reason)).toEqual(['campaign_paused']);

    // The gateway's network is fixed (the fake forgets its traffic too): each contact once more.
    fake.reset();
    await company.put(`/api/campaigns/${c.id}/resume`).expect(200);
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 3, failedContacts: 0 });
    const campaignSends = fake.sent.filter((s) => numbers.includes(s.number));
    expect(campaignSends.map((s) => s.number).sort()).toEqual([...numbers].sort());
    expect(campaignRequests()).toBe(3);
    const events = await eventTypes(c.id);
    expect(events.filter((e) => e === 'campaign.paused')).toHaveLength(1);
    expect(events).toContain('campaign.completed');
  });
});
