import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';
import { WebhookReceiver } from '../../support/webhook-receiver';

const ENCRYPTION_KEY = 'webhook-restart-e2e-encryption-key';

/**
 * At least once across crashes: the API runs here (ROLE=api, no workers); deliveries are made
 * by real service processes (src/main.ts, ROLE=worker) that are killed with SIGKILL mid-work.
 */
describe('webhook delivery across a kill -9', () => {
  const receiver = new WebhookReceiver();
  const { t, fake, pool, startWorker } = useE2eFixture({
    database: 'webhooks_restart',
    role: 'api',
    env: { ENCRYPTION_KEY },
    servers: [receiver],
  });

  async function setUp(): Promise<{ company: TestCompany; path: string }> {
    const company = await TestCompany.register(t.http);
    const path = `/restart/${company.id}`;
    const created = await company
      .put(`/api/companies/${company.id}/webhook`, { url: `${receiver.url}${path}` })
      .expect(201);
    receiver.trust(created.body.secret);
    return { company, path };
  }

  async function startCampaign(company: TestCompany, start: number): Promise<number> {
    const gw = connectedInstance(fake);
    const body = campaignBody(fake, gw, { contacts: phones(3, start) });
    return (await company.post('/api/campaigns', body).expect(200)).body.id;
  }

  async function eventIds(campaignId: number): Promise<string[]> {
    const { rows } = await pool.query(
      `SELECT 'evt_' || id AS id FROM outbox_events WHERE campaign_id = $1 ORDER BY outbox_events.id`,
      [campaignId],
    );
    return rows.map((r: { id: string }) => r.id);
  }

  async function deliveryRows(
    campaignId: number,
  ): Promise<Array<{ id: string; event_type: string; status: string; attempts: number }>> {
    const { rows } = await pool.query(
      `SELECT id::text AS id, event_type, status, attempts FROM webhook_deliveries
        WHERE campaign_id = $1 ORDER BY outbox_event_id`,
      [campaignId],
    );
    return rows;
  }

  /** The rows once none is PENDING or SENDING (the receiver answers before the outcome is written). */
  async function finishedDeliveryRows(
    campaignId: number,
  ): Promise<Array<{ id: string; event_type: string; status: string; attempts: number }>> {
    return until(
      () => deliveryRows(campaignId),
      (rows) => rows.every((d) => d.status === 'DELIVERED' || d.status === 'FAILED'),
      20_000,
      'finished deliveries',
    );
  }

  async function attempts(
    company: TestCompany,
    deliveryId: string,
  ): Promise<Array<[number, number | null, string | null]>> {
    const response = await company
      .get(`/api/companies/${company.id}/webhook/deliveries/${deliveryId}/attempts`)
      .expect(200);
    return response.body.map((a: Record<string, any>) => [a.attempt, a.statusCode, a.error]);
  }

  it('loses nothing when the worker dies while a delivery waits for its retry', async () => {
    const { company, path } = await setUp();
    const env = { WEBHOOK_RETRY_SCHEDULE_MS: '6000,6000', WEBHOOK_TIMEOUT_MS: '2000' };
    const first = await startWorker(env);
    receiver.failNext(1, 500);
    const campaignId = await startCampaign(company, 100);
    await waitForCampaign(company, campaignId, (c) => c.status === 'COMPLETED');
    await receiver.waitFor(() => receiver.forPath(path).length >= 1, 20_000, 'first attempt');
    await first.kill9();

    // Mid-retry at the kill: the started event failed once, the rest wait behind it.
    const ids = await eventIds(campaignId);
    expect(ids).toHaveLength(12);
    const before = await deliveryRows(campaignId);
    expect(before).toHaveLength(12);
    expect(before[0]).toMatchObject({
      event_type: 'campaign.started',
      status: 'PENDING',
      attempts: 1,
    });
    expect(before.slice(1).every((d) => d.status === 'PENDING' && d.attempts === 0)).toBe(true);
    expect(receiver.accepted(path)).toHaveLength(0);

    await startWorker(env);
    await receiver.waitFor(() => receiver.unique(path).length >= 12, 30_000, 'all 12 events');
    expect(receiver.unique(path).map((r) => r.id)).toEqual(ids);
    expect(receiver.forPath(path).map((r) => [r.id, r.answered])).toEqual([
      [ids[0], 500],
      ...ids.map((id) => [id, 204]),
    ]);
    const after = await finishedDeliveryRows(campaignId);
    expect(after.map((d) => [d.status, d.attempts])).toEqual([
      ['DELIVERED', 2],
      ...Array(11).fill(['DELIVERED', 1]),
    ]);
    expect(await attempts(company, after[0].id)).toEqual([
      [1, 500, 'o destino respondeu HTTP 500'],
      [2, 204, null],
    ]);
  });

  it('sends an attempt cut short by the kill again, under the same webhook-id, after its lease', async () => {
    const { company, path } = await setUp();
    // Lease = timeout + 5 s: the new worker takes the delivery over 11 s after the claim.
    const first = await startWorker({
      WEBHOOK_RETRY_SCHEDULE_MS: '1000',
      WEBHOOK_TIMEOUT_MS: '6000',
    });
    receiver.holdNext(1);
    const campaignId = await startCampaign(company, 200);
    await waitForCampaign(company, campaignId, (c) => c.status === 'COMPLETED');
    await receiver.waitFor(() => receiver.forPath(path).length >= 1, 20_000, 'held attempt');
    await first.kill9();

    const ids = await eventIds(campaignId);
    const before = await deliveryRows(campaignId);
    expect(before[0]).toMatchObject({ status: 'SENDING', attempts: 1 });

    await startWorker({ WEBHOOK_RETRY_SCHEDULE_MS: '1000', WEBHOOK_TIMEOUT_MS: '6000' });
    await receiver.waitFor(() => receiver.unique(path).length >= 12, 40_000, 'all 12 events');
    const requests = receiver.forPath(path);
    // The held attempt never got an answer; the same event came again, with the same id and body.
    expect(requests[0]).toMatchObject({ id: ids[0], answered: 0 });
    expect(requests[1]).toMatchObject({ id: ids[0], answered: 204, raw: requests[0].raw });
    expect(requests.slice(1).map((r) => r.id)).toEqual(ids);
    expect(receiver.unique(path).map((r) => r.id)).toEqual(ids);
    const after = await finishedDeliveryRows(campaignId);
    expect(after.every((d) => d.status === 'DELIVERED')).toBe(true);
    expect(await attempts(company, after[0].id)).toEqual([
      [1, null, 'tentativa interrompida: o worker parou antes de receber a resposta'],
      [2, 204, null],
    ]);
  });
});
