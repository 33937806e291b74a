import { createServer } from 'node:net';
import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';
import { ReceivedWebhook, WebhookReceiver } from '../../support/webhook-receiver';

const ENCRYPTION_KEY = 'webhook-delivery-e2e-encryption-key';
/** Four attempts: the first, then retries 300, 600 and 900 ms after each failure. */
const RETRY_SCHEDULE_MS = '300,600,900';
const STATS_KEYS = ['total', 'sent', 'failed', 'pending', 'progressPercentage'];

interface Delivery {
  id: number;
  event: string;
  campaignId: number | null;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

/**
 * Delivery end to end: a real campaign on the fake gateway writes its events, the service's
 * worker signs and POSTs them to a real receiver on 127.0.0.1 that verifies every signature.
 * On a database of its own, so no other file's worker delivers (or steals) these events.
 */
describe('webhook delivery', () => {
  const receiver = new WebhookReceiver();
  const { t, fake, pool } = useE2eFixture({
    database: 'webhooks_delivery',
    env: {
      ENCRYPTION_KEY,
      WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS,
      WEBHOOK_TIMEOUT_MS: '2000',
    },
    servers: [receiver],
  });

  async function webhookFor(
    company: TestCompany,
    settings: Record<string, unknown> = {},
  ): Promise<{ path: string; secret: string }> {
    const path = `/hooks/${company.id}`;
    const created = await company
      .put(`/api/companies/${company.id}/webhook`, { url: `${receiver.url}${path}`, ...settings })
      .expect(201);
    receiver.trust(created.body.secret);
    return { path, secret: created.body.secret };
  }

  async function runCampaign(
    company: TestCompany,
    overrides: Record<string, unknown>,
  ): Promise<number> {
    const gw = connectedInstance(fake);
    const c = (await company.post('/api/campaigns', campaignBody(fake, gw, overrides)).expect(200))
      .body;
    await waitForCampaign(company, c.id, (x) => ['COMPLETED', 'FAILED'].includes(x.status));
    return c.id;
  }

  async function outboxOf(
    campaignId: number,
  ): Promise<Array<{ id: string; event_type: string; payload: any }>> {
    const { rows } = await pool.query(
      `SELECT id::text AS id, event_type, payload FROM outbox_events WHERE campaign_id = $1 ORDER BY outbox_events.id`,
      [campaignId],
    );
    return rows;
  }

  async function deliveriesOf(company: TestCompany, campaignId: number): Promise<Delivery[]> {
    const response = await company
      .get(`/api/companies/${company.id}/webhook/deliveries?campaignId=${campaignId}&size=100`)
      .expect(200);
    expect(response.headers['x-total-count']).toBe(String(response.body.length));
    return response.body;
  }

  /**
   * The log once no delivery of the campaign is PENDING or SENDING: the receiver answers a
   * moment before the worker writes the outcome.
   */
  async function finishedDeliveriesOf(
    company: TestCompany,
    campaignId: number,
  ): Promise<Delivery[]> {
    return until(
      () => deliveriesOf(company, campaignId),
      (log) => log.every((d) => d.status === 'DELIVERED' || d.status === 'FAILED'),
      20_000,
      'finished deliveries',
    );
  }

  async function attemptsOf(
    company: TestCompany,
    deliveryId: number,
  ): Promise<Array<Record<string, any>>> {
    return (
      await company
        .get(`/api/companies/${company.id}/webhook/deliveries/${deliveryId}/attempts`)
        .expect(200)
    ).body;
  }

  /** Requests of one campaign in arrival order, attempts and repeats included. */
  function requestsFor(path: string, campaignId: number): ReceivedWebhook[] {
    return receiver.forPath(path).filter((r) => r.body.campaignId === campaignId);
  }

  it('delivers the events of a real campaign, signed, in order, with the payloads of docs/API-RULES.md §9', async () => {
    const company = await TestCompany.register(t.http);
    const hook = await webhookFor(company);
    const campaignId = await runCampaign(company, { contacts: phones(4, 100) });
    await receiver.waitFor(() => receiver.unique(hook.path).length >= 12, 20_000, '12 events');

    const outbox = await outboxOf(campaignId);
    expect(outbox.map((e) => e.event_type)).toEqual([
      'campaign.started',
      ...Array(10).fill('campaign.progress'),
      'campaign.completed',
    ]);
    const got = receiver.unique(hook.path);
    expect(got).toHaveLength(12);
    expect(receiver.forPath(hook.path)).toHaveLength(12);
    // In the outbox's order, each under its event's stable id, each signed and fresh.
    expect(got.map((r) => r.id)).toEqual(outbox.map((e) => `evt_${e.id}`));
    for (const [i, request] of got.entries()) {
      expect(request.signatureValid).toBe(true);
      expect(request.matchedSecrets).toEqual([hook.secret]);
      expect(request.signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(request.headers['content-type']).toBe('application/json');
      expect(Math.abs(request.timestamp - Date.now() / 1000)).toBeLessThan(300);
      expect(request.body).toEqual(outbox[i].payload);
    }
    const [started, ...rest] = got.map((r) => r.body);
    const completed = rest.pop() as Record<string, any>;
    expect(Object.keys(started)).toEqual([
      'event',
      'campaignId',
      'companyId',
      'timestamp',
      'stats',
    ]);
    expect(Object.keys(started.stats)).toEqual(STATS_KEYS);
    expect(started).toMatchObject({ event: 'campaign.started', campaignId, companyId: company.id });
    expect(new Date(started.timestamp).toISOString()).toBe(started.timestamp);
    expect(rest.map((p) => p.event)).toEqual(Array(10).fill('campaign.progress'));
    expect(rest.map((p) => p.milestone)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    for (const progress of rest) {
      expect(Object.keys(progress)).toEqual([...Object.keys(started), 'milestone']);
      expect(Object.keys(progress.stats)).toEqual([...STATS_KEYS, 'delivered', 'read', 'replied']);
    }
    expect(Object.keys(completed.stats)).toEqual([
      ...STATS_KEYS,
      'duration',
      'delivered',
      'read',
      'replied',
    ]);
    expect(completed).toMatchObject({
      event: 'campaign.completed',
      campaignId,
      companyId: company.id,
      stats: { total: 4, sent: 4, failed: 0, pending: 0, progressPercentage: 100 },
    });
    expect(completed.stats.duration).toMatch(/^\d{2}:\d{2}:\d{2}$/);

    const log = await finishedDeliveriesOf(company, campaignId);
    expect(log).toHaveLength(12);
    expect(log.map((d) => d.id)).toEqual([...log.map((d) => d.id)].sort((a, b) => b - a));
    expect(log.map((d) => d.event).reverse()).toEqual(outbox.map((e) => e.event_type));
    for (const delivery of log) {
      expect(Object.keys(delivery).sort()).toEqual(
        [
          'attempts',
          'campaignId',
          'createdAt',
          'deliveredAt',
          'event',
          'id',
          'lastError',
          'lastStatusCode',
          'nextAttemptAt',
          'status',
        ].sort(),
      );
      expect(delivery).toMatchObject({
        campaignId,
        status: 'DELIVERED',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      });
      expect(new Date(delivery.deliveredAt as string).getTime()).toBeGreaterThanOrEqual(
        new Date(delivery.createdAt).getTime(),
      );
    }
    const attempts = await attemptsOf(company, log[0].id);
    expect(attempts).toEqual([
      {
        attempt: 1,
        startedAt: expect.any(String),
        durationMs: expect.any(Number),
        statusCode: 204,
        error: null,
      },
    ]);
  });

  it('sends only the subscribed events, and none while the webhook is switched off', async () => {
    const company = await TestCompany.register(t.http);
    const hook = await webhookFor(company, { events: ['campaign.completed'] });
    const first = await runCampaign(company, { contacts: phones(2, 200) });
    await receiver.waitFor(() => receiver.unique(hook.path).length >= 1, 20_000, 'completed');
    expect(receiver.forPath(hook.path).map((r) => r.body.event)).toEqual(['campaign.completed']);
    expect((await finishedDeliveriesOf(company, first)).map((d) => [d.event, d.status])).toEqual([
      ['campaign.completed', 'DELIVERED'],
    ]);
    expect((await outboxOf(first)).length).toBe(12);

    await company
      .put(`/api/companies/${company.id}/webhook`, {
        url: `${receiver.url}${hook.path}`,
        isActive: false,
      })
      .expect(200);
    const second = await runCampaign(company, { contacts: phones(2, 210) });
    // The events were committed with the campaign's state changes; no delivery came of them.
    expect((await outboxOf(second)).length).toBe(12);
    expect(await deliveriesOf(company, second)).toEqual([]);
  });

  it('retries a failed attempt, logging each one, and holds the campaign’s later events until it succeeds', async () => {
    const company = await TestCompany.register(t.http);
    const hook = await webhookFor(company);
    receiver.failNext(2, 500);
    const campaignId = await runCampaign(company, { contacts: phones(2, 300) });
    await receiver.waitFor(() => receiver.unique(hook.path).length >= 12, 20_000, '12 events');

    const outbox = await outboxOf(campaignId);
    const requests = requestsFor(hook.path, campaignId);
    const startedId = `evt_${outbox[0].id}`;
    // Three attempts of the started event under one id: 500, 500, then accepted.
    expect(requests.slice(0, 3).map((r) => [r.id, r.answered])).toEqual([
      [startedId, 500],
      [startedId, 500],
      [startedId, 204],
    ]);
    expect(requests.slice(0, 3).every((r) => r.raw === requests[0].raw)).toBe(true);
    // Nothing later went out before it, and the rest followed once each, in order.
    expect(requests.slice(3).map((r) => r.id)).toEqual(outbox.slice(1).map((e) => `evt_${e.id}`));
    expect(receiver.unique(hook.path).map((r) => r.id)).toEqual(outbox.map((e) => `evt_${e.id}`));

    const log = await finishedDeliveriesOf(company, campaignId);
    const started = log.find((d) => d.event === 'campaign.started') as Delivery;
    expect(started).toMatchObject({
      status: 'DELIVERED',
      attempts: 3,
      lastStatusCode: 204,
      lastError: null,
    });
    expect(log.filter((d) => d.attempts === 1)).toHaveLength(11);
    const attempts = await attemptsOf(company, started.id);
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, 'o destino respondeu HTTP 500'],
      [2, 500, 'o destino respondeu HTTP 500'],
      [3, 204, null],
    ]);
    const starts = attempts.map((a) => new Date(a.startedAt).getTime());
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });

  it('gives up after the last scheduled attempt (FAILED), then delivers the campaign’s next event', async () => {
    const company = await TestCompany.register(t.http);
    const hook = await webhookFor(company, { events: ['campaign.started', 'campaign.completed'] });
    receiver.failNext(4, 503);
    const campaignId = await runCampaign(company, { contacts: phones(1, 400) });
    await receiver.waitFor(
      () => receiver.unique(hook.path).some((r) => r.body.event === 'campaign.completed'),
      20_000,
      'completed after the started event failed',
    );
    const requests = requestsFor(hook.path, campaignId);
    expect(requests.map((r) => [r.body.event, r.answered])).toEqual([
      ['campaign.started', 503],
      ['campaign.started', 503],
      ['campaign.started', 503],
      ['campaign.started', 503],
      ['campaign.completed', 204],
    ]);
    const log = await finishedDeliveriesOf(company, campaignId);
    expect(log.map((d) => [d.event, d.status, d.attempts, d.lastStatusCode])).toEqual([
      ['campaign.completed', 'DELIVERED', 1, 204],
      ['campaign.started', 'FAILED', 4, 503],
    ]);
    expect(log[1]).toMatchObject({ deliveredAt: null, nextAttemptAt: null });
    expect(log[1].lastError).toBe('o destino respondeu HTTP 503');
    expect((await attemptsOf(company, log[1].id)).map((a) => a.statusCode)).toEqual([
      503, 503, 503, 503,
    ]);
  });

  it('logs a receiver that does not answer as an error without status code, then FAILED', async () => {
    const company = await TestCompany.register(t.http);
    const closedPort = await unusedPort();
    await company
      .put(`/api/companies/${company.id}/webhook`, {
        url: `http://127.0.0.1:${closedPort}/hook`,
        events: ['campaign.started'],
      })
      .expect(201);
    const campaignId = await runCampaign(company, { contacts: phones(1, 500) });
    const log = await finishedDeliveriesOf(company, campaignId);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'FAILED', attempts: 4, lastStatusCode: null });
    expect(log[0].lastError).toMatch(/^Não foi possível conectar ao destino 127\.0\.0\.1:\d+$/);
    const attempts = await attemptsOf(company, log[0].id);
    expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, null],
      [2, null],
      [3, null],
      [4, null],
    ]);
  });

  it('signs with the new and the previous secret after a rotation', async () => {
    const company = await TestCompany.register(t.http);
    const hook = await webhookFor(company, { events: ['campaign.completed'] });
    const rotated = await company
      .post(`/api/companies/${company.id}/webhook/rotate-secret`)
      .expect(200);
    receiver.trust(rotated.body.secret);
    await runCampaign(company, { contacts: phones(1, 600) });
    await receiver.waitFor(() => receiver.unique(hook.path).length >= 1, 20_000, 'completed');
    const [request] = receiver.forPath(hook.path);
    expect(request.answered).toBe(204);
    expect(request.signature.split(' ')).toHaveLength(2);
    expect(request.matchedSecrets.sort()).toEqual([hook.secret, rotated.body.secret].sort());
  });
});

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
