import { campaignBody, connectedInstance } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startTestApp, TestApp, TestCompany } from '../../support/test-app';

describe('TRUST_PROXY', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  async function anonymousStatuses(app: TestApp, forwardedFor: string[]): Promise<number[]> {
    const statuses: number[] = [];
    for (const address of forwardedFor) {
      statuses.push(
        (await app.http.get('/api/nothing-here').set('X-Forwarded-For', address)).status,
      );
    }
    return statuses;
  }

  it('off: X-Forwarded-For is not believed, so it cannot dodge the per-IP limit', async () => {
    const app = await startTestApp({ ANONYMOUS_RATE_LIMIT_PER_MINUTE: '2' });
    apps.push(app);
    expect(await anonymousStatuses(app, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([
      404, 404, 429,
    ]);
  });

  it('on (one hop): each client behind the balancer has its own limit', async () => {
    const app = await startTestApp({ ANONYMOUS_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '1' });
    apps.push(app);
    expect(
      await anonymousStatuses(app, ['203.0.113.1', '203.0.113.1', '203.0.113.2', '203.0.113.1']),
    ).toEqual([404, 404, 404, 429]);
    // Only the hop the balancer added counts: a client cannot pick its own address.
    expect(await anonymousStatuses(app, ['198.51.100.9, 203.0.113.2'])).toEqual([404]);
    expect(await anonymousStatuses(app, ['198.51.100.9, 203.0.113.2'])).toEqual([429]);
  });

  it('by address: only the listed proxies are believed', async () => {
    const app = await startTestApp({
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
    });
    apps.push(app);
    expect(await anonymousStatuses(app, ['203.0.113.7', '203.0.113.8', '203.0.113.7'])).toEqual([
      404, 404, 429,
    ]);
  });
});

describe('statement timeouts', () => {
  const { t, fake } = useE2eFixture({ env: { STATEMENT_TIMEOUT_MS: '300' } });

  it('answers 503 when a request’s query runs past the timeout, changing nothing', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const draft = (
      await company.post('/api/campaigns', campaignBody(fake, gw, { isDraft: true })).expect(200)
    ).body;
    const holder = await db().connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM campaigns WHERE id = $1 FOR UPDATE`, [draft.id]);
      const path = `/api/campaigns/${draft.id}/cancel`;
      const response = await company.put(path);
      expect(expectErrorBody(response, 503, path)).toMatch(/demorou demais/);
      expect(response.headers['retry-after']).toBe('5');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const after = await company.get(`/api/campaigns/${draft.id}`).expect(200);
    expect(after.body.status).toBe('DRAFT');
    await company.put(`/api/campaigns/${draft.id}/cancel`).expect(200);
  });
});
