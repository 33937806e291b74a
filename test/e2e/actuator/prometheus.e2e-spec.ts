import type request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { Sample, samplesOf, total } from '../../support/prometheus';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';
import { WebhookReceiver } from '../../support/webhook-receiver';

const TEXT_FORMAT = 'text/plain; version=0.0.4; charset=utf-8';
const METRICS_TOKEN = 'metrics-scrape-token-0123456789';

async function scrape(http: TestAgent): Promise<Sample[]> {
  const response = await http.get('/actuator/prometheus').expect(200);
  return samplesOf(response.text);
}

function expectNoRateLimitHeaders(response: request.Response): void {
  expect(Object.keys(response.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
}

const HTTP = 'campaign_service_http_request_duration_seconds';
const GATEWAY = 'campaign_service_gateway_request_duration_seconds';
const MESSAGES = 'campaign_service_messages_total';

/**
 * GET /actuator/prometheus on the real application, with real traffic: a campaign sent through
 * the fake Evolution API and its webhooks delivered to a real receiver. On a database of its
 * own, so that only this application's workers send these campaigns (and count them).
 */
describe('GET /actuator/prometheus', () => {
  const receiver = new WebhookReceiver();
  const { t, fake, pool } = useE2eFixture({
    database: 'metrics',
    env: { RECONCILE_DELAYS_MS: '300,900' },
    servers: [receiver],
  });

  it('answers the text exposition format, public and off the rate limits, with the service metrics', async () => {
    const response = await t.http.get('/actuator/prometheus').expect(200);
    expect(response.headers['content-type']).toBe(TEXT_FORMAT);
    expectNoRateLimitHeaders(response);
    for (const [name, type] of [
      [HTTP, 'histogram'],
      [GATEWAY, 'histogram'],
      [MESSAGES, 'counter'],
      ['campaign_service_dispatch_lag_seconds', 'histogram'],
      ['campaign_service_campaigns_in_flight', 'gauge'],
      ['campaign_service_work_queue_depth', 'gauge'],
      ['campaign_service_webhook_deliveries_total', 'counter'],
      ['campaign_service_imported_rows_total', 'counter'],
      ['campaign_service_db_pool_connections', 'gauge'],
      ['campaign_service_db_pool_waiting_clients', 'gauge'],
      ['campaign_service_db_pool_max_connections', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
      ['nodejs_heap_size_used_bytes', 'gauge'],
      ['process_cpu_seconds_total', 'counter'],
    ]) {
      expect(response.text).toContain(`# TYPE ${name} ${type}\n`);
    }
    const samples = samplesOf(response.text);
    // The queue depths, read from the database at this scrape.
    for (const queue of ['campaigns', 'import_jobs', 'webhook_deliveries', 'notices']) {
      expect([queue, total(samples, 'campaign_service_work_queue_depth', { queue })]).toEqual([
        queue,
        0,
      ]);
      expect(
        samples.some(
          (s) => s.name === 'campaign_service_work_queue_depth' && s.labels.queue === queue,
        ),
      ).toBe(true);
    }
    // The application's PostgreSQL pool (TypeORM's pg Pool).
    expect(total(samples, 'campaign_service_db_pool_max_connections')).toBe(20);
    expect(
      total(samples, 'campaign_service_db_pool_connections', { state: 'idle' }) +
        total(samples, 'campaign_service_db_pool_connections', { state: 'in_use' }),
    ).toBeGreaterThan(0);
    expect(samples.map((s) => s.name)).toContain('campaign_service_db_pool_waiting_clients');
  });

  it('counts a campaign exactly as the database does: messages, gateway calls, lag, requests, webhooks', async () => {
    const { http } = t;
    const company = await TestCompany.register(http);
    const hook = await company
      .put(`/api/companies/${company.id}/webhook`, { url: `${receiver.url}/hooks/${company.id}` })
      .expect(201);
    receiver.trust(hook.body.secret);
    const gw = connectedInstance(fake);
    const contacts = phones(4, 7_100);
    fake.refuseNumber(contacts[3].phoneNumber);

    const before = await scrape(http);
    const created = await company
      .post('/api/campaigns', campaignBody(fake, gw, { contacts }))
      .expect(200);
    let polls = 0;
    const campaign = await until(
      async () => {
        polls += 1;
        return (await company.get(`/api/campaigns/${created.body.id}`).expect(200)).body;
      },
      (polled) => polled.status === 'COMPLETED',
      30_000,
    );
    expect(campaign).toMatchObject({ status: 'COMPLETED', sentContacts: 3, failedContacts: 1 });
    // Every webhook event of the campaign delivered (started, progress steps, completed).
    const deliveries = await until(
      async () =>
        (
          await pool.query<{ status: string }>(
            `SELECT status FROM webhook_deliveries WHERE company_id = $1`,
            [company.id],
          )
        ).rows,
      (rows) =>
        rows.length > 0 &&
        rows.every((d) => d.status === 'DELIVERED') &&
        receiver.received.some((r) => r.body.event === 'campaign.completed'),
      30_000,
    );
    const after = await scrape(http);
    const delta = (name: string, labels: Record<string, string> = {}): number =>
      total(after, name, labels) - total(before, name, labels);

    const rows = (
      await pool.query(
        `SELECT status, count(*)::int AS n FROM campaign_contacts WHERE campaign_id = $1 GROUP BY status`,
        [created.body.id],
      )
    ).rows as Array<{ status: string; n: number }>;
    const stored = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    expect(stored).toEqual({ SENT: 3, FAILED: 1 });

    // Messages: what the database and the campaign say, by reason class.
    expect(delta(MESSAGES, { outcome: 'sent' })).toBe(stored.SENT);
    expect(delta(MESSAGES, { outcome: 'sent', reason: 'gateway' })).toBe(campaign.sentContacts);
    expect(delta(MESSAGES, { outcome: 'failed' })).toBe(stored.FAILED);
    expect(delta(MESSAGES, { outcome: 'failed', reason: 'refused_number' })).toBe(
      campaign.failedContacts,
    );
    expect(delta(MESSAGES, { outcome: 'uncertain' })).toBe(0);
    // Gateway calls: each send timed, classed by what its answer proved.
    expect(delta(`${GATEWAY}_count`, { operation: 'send_text', outcome: 'sent' })).toBe(3);
    expect(delta(`${GATEWAY}_count`, { operation: 'send_text', outcome: 'refused' })).toBe(1);
    expect(delta(`${GATEWAY}_count`, { operation: 'send_text' })).toBe(
      fake.sent.filter((s) => s.instance === gw.instance).length + 1,
    );
    // Each message's lag behind its due time, once.
    expect(delta('campaign_service_dispatch_lag_seconds_count')).toBe(4);
    expect(total(after, 'campaign_service_campaigns_in_flight')).toBe(0);
    expect(total(after, 'campaign_service_work_queue_depth', { queue: 'campaigns' })).toBe(0);
    // HTTP: the requests this test made, by route template.
    expect(
      delta(`${HTTP}_count`, { method: 'POST', route: '/api/campaigns', status_code: '200' }),
    ).toBe(1);
    expect(
      delta(`${HTTP}_count`, { method: 'GET', route: '/api/campaigns/:id', status_code: '200' }),
    ).toBe(polls);
    // The scrape before this one, counted once it ended.
    expect(
      delta(`${HTTP}_count`, { method: 'GET', route: '/actuator/prometheus', status_code: '200' }),
    ).toBe(1);
    expect(delta(`${HTTP}_count`)).toBe(polls + 2);
    // Webhook deliveries: every attempt delivered, as the database has them.
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    expect(delta('campaign_service_webhook_deliveries_total', { outcome: 'delivered' })).toBe(
      deliveries.length,
    );
    expect(delta('campaign_service_webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
  });

  it('counts uncertain sends, and again as sent or failed when reconciliation settles them', async () => {
    const { http } = t;
    const company = await TestCompany.register(http);
    const gw = connectedInstance(fake);
    // The first goes out but its answer is lost (found later in the gateway's store); the
    // second never reaches WhatsApp and its answer is lost too (never found); the third is sent.
    fake.scriptSends('send-then-drop', 'drop-without-sending');
    const before = await scrape(http);
    const created = await company
      .post('/api/campaigns', campaignBody(fake, gw, { contacts: phones(3, 7_400) }))
      .expect(200);
    const done = await waitForCampaign(
      company,
      created.body.id,
      (x) => x.status === 'COMPLETED',
      30_000,
    );
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 1, unknownOutcomeContacts: 1 });
    const after = await scrape(http);
    const delta = (labels: Record<string, string>): number =>
      total(after, MESSAGES, labels) - total(before, MESSAGES, labels);
    expect({
      uncertain: delta({ outcome: 'uncertain', reason: 'gateway' }),
      sent: delta({ outcome: 'sent', reason: 'gateway' }),
      reconciled: delta({ outcome: 'sent', reason: 'reconciled' }),
      unknown: delta({ outcome: 'failed', reason: 'unknown_outcome' }),
      allSent: delta({ outcome: 'sent' }),
      allFailed: delta({ outcome: 'failed' }),
    }).toEqual({ uncertain: 2, sent: 1, reconciled: 1, unknown: 1, allSent: 2, allFailed: 1 });
    expect(
      total(after, `${GATEWAY}_count`, { operation: 'send_text', outcome: 'uncertain' }) -
        total(before, `${GATEWAY}_count`, { operation: 'send_text', outcome: 'uncertain' }),
    ).toBe(2);
    expect(
      total(after, `${GATEWAY}_count`, { operation: 'find_messages', outcome: 'ok' }) -
        total(before, `${GATEWAY}_count`, { operation: 'find_messages', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('counts imported rows by kind', async () => {
    const company = await TestCompany.register(t.http);
    const before = await scrape(t.http);
    const imported = await company
      .post(`/api/companies/${company.id}/imports/contacts`, {
        contacts: phones(5, 7_300),
      })
      .expect(201);
    const after = await scrape(t.http);
    expect(imported.body.importSummary.imported).toBe(5);
    expect(
      total(after, 'campaign_service_imported_rows_total', { kind: 'push' }) -
        total(before, 'campaign_service_imported_rows_total', { kind: 'push' }),
    ).toBe(5);
  });

  it('labels nothing with a phone number, a company or campaign id, or a raw path', async () => {
    const { http } = t;
    const company = await TestCompany.register(http);
    const gw = connectedInstance(fake);
    const contacts = phones(2, 7_200);
    const created = await company
      .post('/api/campaigns', campaignBody(fake, gw, { contacts }))
      .expect(200);
    const campaignId = String(created.body.id);
    await company.get(`/api/campaigns/${campaignId}/contacts`).expect(200);
    await company.get('/api/campaigns/987654321').expect(404);
    await company.get(`/api/companies/${company.id}/webhook`).expect(404);
    await http.get(`/api/nao-existe/${contacts[0].phoneNumber}`).expect(404);
    await http.get(`/actuator/nada/${campaignId}?phone=${contacts[1].phoneNumber}`).expect(404);

    const samples = await scrape(http);
    const routes = new Set(
      samples.filter((s) => s.name.startsWith(HTTP)).map((s) => s.labels.route),
    );
    expect([...routes]).toEqual(
      expect.arrayContaining([
        '/api/campaigns/:id',
        '/api/campaigns/:id/contacts',
        '/api/companies/:companyId/webhook',
        '/api/auth/register',
        'unmatched',
      ]),
    );
    for (const route of routes) {
      // A template or the fixed label: never an id, a number or a query string.
      expect(route).toMatch(/^(unmatched|(\/[\w.-]*|\/:\w+)+)$/);
      expect(route).not.toMatch(/\/\d+(\/|$)/);
    }
    const NUMERIC_LABELS = new Set(['le', 'status_code', 'major', 'minor', 'patch']);
    const ids = new Set([String(company.id), campaignId]);
    const digits = contacts.flatMap((c) => [c.phoneNumber, c.phoneNumber.slice(2)]);
    for (const sample of samples) {
      for (const [label, value] of Object.entries(sample.labels)) {
        const where = `${sample.name} ${label}="${value}"`;
        expect([where, /\d{7,}/.test(value)]).toEqual([where, false]);
        expect([where, digits.some((d) => value.includes(d))]).toEqual([where, false]);
        if (!NUMERIC_LABELS.has(label)) {
          expect([where, ids.has(value)]).toEqual([where, false]);
        }
      }
    }
  });
});

describe('GET /actuator/prometheus with METRICS_TOKEN', () => {
  const { t } = useE2eFixture({
    env: { ROLE: 'api', METRICS_TOKEN, ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1' },
  });

  it('answers 401 with the error body without the bearer token, or with a wrong one', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer metrics-scrape-token-0123456788' },
      { Authorization: `Bearer ${METRICS_TOKEN}x` },
      { Authorization: `Basic ${Buffer.from(`x:${METRICS_TOKEN}`).toString('base64')}` },
      { Authorization: METRICS_TOKEN },
      { 'X-Access-Token': METRICS_TOKEN },
    ];
    for (const headers of cases) {
      const response = await t.http.get('/actuator/prometheus').set(headers);
      expectErrorBody(response, 401, '/actuator/prometheus');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(response.text).not.toContain('campaign_service_');
      expectNoRateLimitHeaders(response);
    }
  });

  it('answers 200 with the right token, as often as the scraper asks (no rate limit)', async () => {
    for (const authorization of [`Bearer ${METRICS_TOKEN}`, `bearer  ${METRICS_TOKEN} `]) {
      for (let i = 0; i < 3; i += 1) {
        const response = await t.http
          .get('/actuator/prometheus')
          .set('Authorization', authorization)
          .expect(200);
        expect(response.headers['content-type']).toBe(TEXT_FORMAT);
        expect(response.text).toContain('# TYPE campaign_service_messages_total counter');
        expectNoRateLimitHeaders(response);
      }
    }
    // The rest of /actuator stays public.
    await t.http.get('/actuator/health/liveness').expect(200);
  });

  it('is declared in the OpenAPI description: text/plain 200, the 401, public or the bearer token', async () => {
    const doc = (await t.http.get('/api/docs-json').expect(200)).body;
    const operation = doc.paths['/actuator/prometheus'].get;
    expect(Object.keys(operation.responses['200'].content)).toEqual([TEXT_FORMAT]);
    expect(operation.responses['200'].content[TEXT_FORMAT].schema.type).toBe('string');
    expect(operation.responses['401']).toBeDefined();
    expect(operation.security).toEqual(expect.arrayContaining([{}, { metricsToken: [] }]));
    expect(doc.components.securitySchemes.metricsToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });
});
