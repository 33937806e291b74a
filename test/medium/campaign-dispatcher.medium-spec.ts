import type { Pool } from 'pg';
import { METRIC_PREFIX } from '../../src/common/metrics/metrics';
import { Clock } from '../../src/common/time/clock';
import { AppConfig } from '../../src/config/app-config.service';
import { MessagingGateway } from '../../src/modules/gateway/domain/messaging-gateway';
import { CampaignDispatcher } from '../../src/modules/campaigns/application/campaign-dispatcher';
import { CampaignGatewayTargets } from '../../src/modules/campaigns/application/campaign-gateway-targets';
import { DispatchClaimRepository } from '../../src/modules/campaigns/infrastructure/dispatch-claim.repository';
import { MAX_SEND_ATTEMPTS } from '../../src/modules/campaigns/domain/send-outcome';
import { INTERNAL_ERRORS_BEFORE_PAUSE } from '../../src/modules/campaigns/domain/campaign-stops';
import { campaignBody, connectedInstance, phones } from '../support/campaigns';
import { sqlPool } from '../support/db';
import { samplesOf, total } from '../support/prometheus';
import { FakeEvolutionApi } from '../support/fake-evolution-api';
import { startAppOn, TestApp, TestCompany } from '../support/test-app';
import { createDedicatedDatabase } from '../e2e/foundation/helpers/databases';

/**
 * The dispatcher one step at a time, against real PostgreSQL and the fake Evolution API: an
 * app that runs no workers (ROLE=api) on a database of its own, so nothing but the test
 * claims a campaign. Each step claims the campaign and runs one turn of it; without a
 * liveness lock the turn sends one message. Waits are skipped with SQL, never slept through.
 */
describe('CampaignDispatcher, step by step', () => {
  const fake = new FakeEvolutionApi();
  let database: { url: string; drop(): Promise<void> };
  let t: TestApp;
  let pool: Pool;
  let dispatcher: CampaignDispatcher;
  let claims: DispatchClaimRepository;
  let company: TestCompany;

  beforeAll(async () => {
    database = await createDedicatedDatabase('dispatcher_medium');
    await fake.start();
    t = await startAppOn(database.url, { ROLE: 'api', RECONCILE_DELAYS_MS: '60000' });
    pool = sqlPool(database.url, 2);
    dispatcher = t.app.get(CampaignDispatcher);
    claims = t.app.get(DispatchClaimRepository);
    company = await TestCompany.register(t.http);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    expect(fake.refusals).toEqual([]);
    fake.reset();
  });
  afterAll(async () => {
    await t.close();
    await pool.end();
    await fake.stop();
    await database.drop();
  });

  /** A campaign on an instance of its own, ACTIVE and due (no pauses between messages). */
  async function createCampaign(
    contacts = phones(1),
    overrides: Record<string, unknown> = {},
  ): Promise<{ id: number; instance: string }> {
    const gw = connectedInstance(fake);
    const body = campaignBody(fake, gw, { contacts, ...overrides });
    const created = await company.post('/api/campaigns', body).expect(200);
    return { id: created.body.id as number, instance: gw.instance };
  }

  /** Claims the due campaigns, gives back all but `campaignId`, and runs its turn. */
  async function step(campaignId: number): Promise<void> {
    const leaseSeconds = t.app.get(AppConfig).dispatchLeaseSeconds;
    const claimed = await claims.claimDue(dispatcher.workerId, 100, leaseSeconds, []);
    const others = claimed.filter((claim) => claim.id !== campaignId).map((claim) => claim.id);
    // The claim held the others' instances too: both go back.
    await pool.query(
      `WITH instances AS (
         UPDATE instance_pacing SET held_by = NULL, held_until = NULL
          WHERE held_by = $2
            AND gateway_config_id IN (SELECT gateway_config_id FROM campaigns WHERE id = ANY($1::int[])))
       UPDATE campaigns SET locked_by = NULL, locked_until = NULL WHERE id = ANY($1::int[])`,
      [others, dispatcher.workerId],
    );
    const claim = claimed.find((one) => one.id === campaignId);
    if (!claim) {
      throw new Error(`campaign ${campaignId} was not due`);
    }
    await dispatcher.sendNext(claim);
  }

  /** What a retry, a recheck or a reconciliation would wait for has come: due now. */
  async function makeDue(campaignId: number): Promise<void> {
    await pool.query(
      `UPDATE campaign_contacts SET next_attempt_at = now()
        WHERE campaign_id = $1 AND next_attempt_at > now()`,
      [campaignId],
    );
    await pool.query(`UPDATE campaigns SET next_send_at = now() WHERE id = $1`, [campaignId]);
  }

  async function campaignRow(id: number): Promise<Record<string, any>> {
    const { rows } = await pool.query(
      `SELECT status, sent_contacts, failed_contacts, pause_reason, failure_reason,
              waiting_reason, disconnected_since, locked_by
         FROM campaigns WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  async function contactRows(campaignId: number): Promise<Array<Record<string, any>>> {
    const { rows } = await pool.query(
      `SELECT phone_number, status, retry_count, failure_kind, gateway_message_id
         FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
    return rows;
  }

  async function events(campaignId: number): Promise<Array<{ type: string; payload: any }>> {
    const { rows } = await pool.query(
      `SELECT event_type AS type, payload FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
    return rows;
  }

  /** The contacts the metrics counted with this outcome and reason so far. */
  async function counted(outcome: string, reason: string): Promise<number> {
    const response = await t.http.get('/actuator/prometheus').expect(200);
    return total(samplesOf(response.text), `${METRIC_PREFIX}messages_total`, { outcome, reason });
  }

  async function noticeReasons(campaignId: number): Promise<string[]> {
    const { rows } = await pool.query(
      `SELECT reason FROM notices WHERE dedup_key LIKE $1 ORDER BY id`,
      [`campaign:${campaignId}:%`],
    );
    return rows.map((row: { reason: string }) => row.reason);
  }

  it('records a delivered message: SENT with its key, counted, one message per step', async () => {
    const contacts = phones(2, 100);
    const c = await createCampaign(contacts);
    const countedBefore = await counted('sent', 'gateway');
    await step(c.id);
    expect(await counted('sent', 'gateway')).toBe(countedBefore + 1);
    const [sent] = fake.sentTo(contacts[0].phoneNumber);
    expect(await contactRows(c.id)).toMatchObject([
      { status: 'SENT', retry_count: 1, gateway_message_id: sent.messageId },
      { status: 'PENDING', retry_count: 0 },
    ]);
    expect(await campaignRow(c.id)).toMatchObject({
      status: 'ACTIVE',
      sent_contacts: 1,
      failed_contacts: 0,
      locked_by: null,
    });
    expect(fake.sent).toHaveLength(1);
  });

  it('completes with the last message, its events stamped by the clock', async () => {
    const contacts = phones(2, 200);
    const c = await createCampaign(contacts, { notificationPhone: '11999990001' });
    await step(c.id);
    const { rows } = await pool.query(`SELECT started_at FROM campaigns WHERE id = $1`, [c.id]);
    const finishedAt = new Date((rows[0].started_at as Date).getTime() + 3_723_000);
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(finishedAt);
    await step(c.id);
    expect(await campaignRow(c.id)).toMatchObject({ status: 'COMPLETED', sent_contacts: 2 });
    const completed = (await events(c.id)).filter((e) => e.type === 'campaign.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0].payload).toMatchObject({
      timestamp: finishedAt.toISOString(),
      stats: { total: 2, sent: 2, failed: 0, duration: '01:02:03' },
    });
    expect(await noticeReasons(c.id)).toEqual(['campaign_completed']);
  });

  it('fails a number that is not on WhatsApp, paced, and counts it', async () => {
    const contacts = phones(2, 300);
    fake.refuseNumber(contacts[0].phoneNumber);
    const c = await createCampaign(contacts);
    const countedBefore = await counted('failed', 'refused_number');
    await step(c.id);
    expect(await counted('failed', 'refused_number')).toBe(countedBefore + 1);
    expect((await contactRows(c.id))[0]).toMatchObject({
      status: 'FAILED',
      failure_kind: 'refused_number',
    });
    expect(await campaignRow(c.id)).toMatchObject({ status: 'ACTIVE', failed_contacts: 1 });
  });

  it('retries a transient failure, then fails the contact after the last attempt', async () => {
    const contacts = phones(1, 400);
    const c = await createCampaign(contacts);
    fake.failNext(MAX_SEND_ATTEMPTS, 500);
    for (let attempt = 1; attempt < MAX_SEND_ATTEMPTS; attempt += 1) {
      await step(c.id);
      expect(await contactRows(c.id)).toMatchObject([{ status: 'PENDING', retry_count: attempt }]);
      await makeDue(c.id);
    }
    await step(c.id);
    expect(await contactRows(c.id)).toMatchObject([
      { status: 'FAILED', retry_count: MAX_SEND_ATTEMPTS, failure_kind: 'retries_exhausted' },
    ]);
    expect(await campaignRow(c.id)).toMatchObject({ status: 'COMPLETED', failed_contacts: 1 });
    expect(fake.sent).toHaveLength(0);
  });

  it('leaves an answer that proves nothing UNCERTAIN and never sends it again', async () => {
    const contacts = phones(1, 500);
    const c = await createCampaign(contacts);
    fake.scriptSends('send-then-drop');
    const countedBefore = await counted('uncertain', 'gateway');
    await step(c.id);
    expect(await counted('uncertain', 'gateway')).toBe(countedBefore + 1);
    expect(await contactRows(c.id)).toMatchObject([{ status: 'UNCERTAIN' }]);
    await makeDue(c.id);
    await step(c.id);
    expect(fake.sentTo(contacts[0].phoneNumber)).toHaveLength(1);
    expect(await contactRows(c.id)).toMatchObject([{ status: 'UNCERTAIN' }]);
    expect(await campaignRow(c.id)).toMatchObject({ status: 'ACTIVE', sent_contacts: 0 });
  });

  it('puts the contact back while the instance is down, then fails the campaign after 10 minutes', async () => {
    const c = await createCampaign(phones(2, 600));
    fake.setState(c.instance, 'close');
    await step(c.id);
    expect(await contactRows(c.id)).toMatchObject([
      { status: 'PENDING', retry_count: 0 },
      { status: 'PENDING', retry_count: 0 },
    ]);
    const waiting = await campaignRow(c.id);
    expect(waiting).toMatchObject({ status: 'ACTIVE', waiting_reason: 'INSTANCE_DISCONNECTED' });
    expect(waiting.disconnected_since).not.toBeNull();
    await pool.query(
      `UPDATE campaigns SET disconnected_since = now() - interval '11 minutes' WHERE id = $1`,
      [c.id],
    );
    await makeDue(c.id);
    await step(c.id);
    const failed = await campaignRow(c.id);
    expect(failed.status).toBe('FAILED');
    expect(failed.failure_reason).toMatch(/desconectada por mais de 10 minutos/);
    expect((await contactRows(c.id)).map((r) => r.status)).toEqual(['PENDING', 'PENDING']);
    expect(fake.sent).toHaveLength(0);
  });

  it('pauses once, naming the URL, when the gateway cannot fetch the media', async () => {
    // Creation fetches the media itself, from the fake's own host, which the gateway cannot reach.
    fake.unreachableMedia(new URL(fake.url).host, 'ECONNREFUSED');
    const media = `${fake.url}/midia/oferta.png`;
    const c = await createCampaign(phones(2, 700), {
      mediaUrl: `${media}?assinatura=segredo`,
      notificationPhone: '11999990002',
    });
    await step(c.id);
    const paused = await campaignRow(c.id);
    expect(paused.status).toBe('PAUSED');
    expect(paused.pause_reason).toBe(`a mídia ${media} está inacessível para o gateway`);
    expect(await contactRows(c.id)).toMatchObject([
      { status: 'PENDING', retry_count: 0 },
      { status: 'PENDING', retry_count: 0 },
    ]);
    const types = (await events(c.id)).map((e) => e.type);
    expect(types.filter((type) => type === 'campaign.paused')).toHaveLength(1);
    expect(await noticeReasons(c.id)).toEqual(['campaign_paused']);
  });

  it('pauses after our own errors in a row, every contact still PENDING', async () => {
    const c = await createCampaign(phones(2, 800));
    const targets = t.app.get(CampaignGatewayTargets);
    jest.spyOn(targets, 'targetFor').mockRejectedValue(new Error('pool timeout'));
    for (let error = 1; error < INTERNAL_ERRORS_BEFORE_PAUSE; error += 1) {
      await step(c.id);
      expect(await campaignRow(c.id)).toMatchObject({ status: 'ACTIVE' });
      await makeDue(c.id);
    }
    await step(c.id);
    expect(await campaignRow(c.id)).toMatchObject({
      status: 'PAUSED',
      pause_reason:
        'envio interrompido por um erro interno repetido: erro interno ao preparar o envio',
    });
    expect(await contactRows(c.id)).toMatchObject([
      { status: 'PENDING', retry_count: 0 },
      { status: 'PENDING', retry_count: 0 },
    ]);
    expect(fake.sent).toHaveLength(0);
  });

  it('records the outcome of a send that outlived its lease, and nothing else', async () => {
    const contacts = phones(1, 900);
    const c = await createCampaign(contacts);
    const gateway = t.app.get(MessagingGateway);
    const send = gateway.send.bind(gateway);
    jest.spyOn(gateway, 'send').mockImplementationOnce(async (...args) => {
      // Another worker takes the campaign over while the message is in flight.
      await pool.query(
        `UPDATE campaigns SET locked_by = 'another-worker', locked_until = now() + interval '1 minute'
          WHERE id = $1`,
        [c.id],
      );
      return send(...args);
    });
    await step(c.id);
    expect(await contactRows(c.id)).toMatchObject([{ status: 'SENT' }]);
    expect(await campaignRow(c.id)).toMatchObject({
      status: 'ACTIVE',
      sent_contacts: 1,
      locked_by: 'another-worker',
    });
    expect((await events(c.id)).map((e) => e.type)).toEqual(['campaign.started']);
  });

  it('pauses the campaign of a deactivated company without sending or notifying', async () => {
    const other = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const body = campaignBody(fake, gw, {
      contacts: phones(2, 1000),
      notificationPhone: '11999990003',
    });
    const c = (await other.post('/api/campaigns', body).expect(200)).body as { id: number };
    await pool.query(`UPDATE companies SET is_active = false WHERE id = $1`, [other.id]);
    await step(c.id);
    expect(await campaignRow(c.id)).toMatchObject({
      status: 'PAUSED',
      pause_reason: 'a empresa foi desativada',
    });
    expect(fake.sent).toHaveLength(0);
    expect(await noticeReasons(c.id)).toEqual([]);
  });

  it('doubts what a dead holder left SENDING before anything else, never sending it again', async () => {
    const contacts = phones(2, 1100);
    const c = await createCampaign(contacts);
    await pool.query(
      `UPDATE campaign_contacts SET status = 'SENDING', retry_count = 1, sending_started_at = now()
        WHERE id = (SELECT min(id) FROM campaign_contacts WHERE campaign_id = $1)`,
      [c.id],
    );
    await pool.query(
      `UPDATE campaigns SET locked_by = 'dead-worker', locked_until = now() - interval '1 second'
        WHERE id = $1`,
      [c.id],
    );
    const countedBefore = await counted('uncertain', 'interrupted');
    await step(c.id);
    expect(await counted('uncertain', 'interrupted')).toBe(countedBefore + 1);
    expect((await contactRows(c.id)).map((r) => r.status)).toEqual(['UNCERTAIN', 'SENT']);
    expect(fake.sentTo(contacts[0].phoneNumber)).toHaveLength(0);
    expect(fake.sentTo(contacts[1].phoneNumber)).toHaveLength(1);
  });
});
