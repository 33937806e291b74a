import type request from 'supertest';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestApp, TestCompany } from '../../support/test-app';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

interface Operation {
  method: Method;
  path: string;
}

/** Every operation of the OpenAPI document under /api that a company token is meant for. */
async function companyOperations(t: TestApp): Promise<Operation[]> {
  const doc = (await t.http.get('/api/docs-json').expect(200)).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (
      !path.startsWith('/api/') ||
      path.startsWith('/api/auth/') ||
      path.startsWith('/api/admin/') ||
      // The gateway's events authenticate with their configuration's secret, not a company token.
      path.startsWith('/api/gateway-events/')
    ) {
      continue;
    }
    for (const method of METHODS.filter((m) => m in item)) {
      operations.push({ method, path });
    }
  }
  return operations;
}

function concretePath(path: string, companyId: number): string {
  return path.replace('{companyId}', String(companyId)).replace(/\{[^}]+\}/g, '1');
}

describe('subscription-registered companies', () => {
  const { t } = useE2eFixture();

  const makeSubscriptionCompany = async (): Promise<TestCompany> => {
    const company = await TestCompany.register(t.http);
    await t.http
      .patch(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .send({ registrationType: 'subscription' })
      .expect(200);
    return company;
  };
  const setSubscription = (company: TestCompany, body: Record<string, unknown>): request.Test =>
    t.http.put(`/api/admin/companies/${company.id}/subscription`).set(ADMIN_HEADER).send(body);
  const settingsOf = (company: TestCompany): request.Test =>
    company.get(`/api/companies/${company.id}/settings`);

  it('without a subscription gets 403 with the error body on /api routes', async () => {
    const company = await makeSubscriptionCompany();
    const message = expectErrorBody(
      await settingsOf(company),
      403,
      `/api/companies/${company.id}/settings`,
    );
    expect(message).toMatch(/Assinatura inativa/);
    expectErrorBody(
      await company.patch(`/api/companies/${company.id}/settings`, { pollCampaignsEnabled: false }),
      403,
    );
    const admin = await t.http
      .get(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .expect(200);
    expect(admin.body).toMatchObject({
      registrationType: 'subscription',
      hasServiceAccess: false,
      pollCampaignsEnabled: true,
    });
  });

  it('without an active subscription gets 403 on every company route of the OpenAPI document', async () => {
    const company = await makeSubscriptionCompany();
    const operations = await companyOperations(t);
    expect(operations).toEqual(
      expect.arrayContaining([
        { method: 'get', path: '/api/companies/{companyId}/settings' },
        { method: 'patch', path: '/api/companies/{companyId}/settings' },
      ]),
    );
    for (const { method, path } of operations) {
      const response = await company[method](concretePath(path, company.id));
      expect([method, path, response.status]).toEqual([method, path, 403]);
      expectErrorBody(response, 403);
    }
  });

  it('keeps /api/auth/* open: me, login and logout still work', async () => {
    const company = await makeSubscriptionCompany();
    await setSubscription(company, { subscriptionStatus: 'paused' }).expect(200);
    const me = await company.get('/api/auth/me').expect(200);
    expect(me.body).toMatchObject({ companyId: company.id, subscriptionStatus: 'paused' });
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: company.email, password: company.password })
      .expect(200);
    expect(login.body.subscriptionStatus).toBe('paused');
    await t.http.post('/api/auth/logout').set('X-Access-Token', login.body.accessToken).expect(204);
    expectErrorBody(
      await t.http.get('/api/auth/me').set('X-Access-Token', login.body.accessToken),
      401,
    );
  });

  it.each([['paused'], ['cancelled'], ['pending'], ['expired'], [null]])(
    'refuses a subscription whose status is %p with 403',
    async (status) => {
      const company = await makeSubscriptionCompany();
      await setSubscription(company, {
        subscriptionId: 'sub-1',
        subscriptionStatus: status ?? undefined,
      }).expect(200);
      expectErrorBody(await settingsOf(company), 403);
    },
  );

  it.each([['active'], ['authorized'], ['ACTIVE']])(
    'grants access once the subscription is %s, on the very next request with the same token',
    async (status) => {
      const company = await makeSubscriptionCompany();
      expectErrorBody(await settingsOf(company), 403);
      await setSubscription(company, { subscriptionStatus: status }).expect(200);
      await settingsOf(company).expect(200);
      const admin = await t.http
        .get(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .expect(200);
      expect(admin.body.hasServiceAccess).toBe(true);
    },
  );

  it('loses access again on the next request when the subscription is paused', async () => {
    const company = await makeSubscriptionCompany();
    await setSubscription(company, { subscriptionStatus: 'active' }).expect(200);
    await settingsOf(company).expect(200);
    await setSubscription(company, { subscriptionStatus: 'paused' }).expect(200);
    expectErrorBody(await settingsOf(company), 403);
  });

  it('an admin-registered company keeps access whatever its subscription says', async () => {
    const company = await TestCompany.register(t.http);
    await setSubscription(company, { subscriptionStatus: 'cancelled' }).expect(200);
    await settingsOf(company).expect(200);
    await t.http
      .patch(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .send({ registrationType: 'subscription' });
    expectErrorBody(await settingsOf(company), 403);
    await t.http
      .patch(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .send({ registrationType: 'admin_password' });
    await settingsOf(company).expect(200);
  });

  it('login returns the subscription fields as strings: dates in ISO 8601 UTC, the amount as a decimal string', async () => {
    const company = await makeSubscriptionCompany();
    const subscription = {
      subscriptionId: 'sub-777',
      payerId: 'payer-1',
      subscriptionStatus: 'authorized',
      subscriptionReason: 'Plano Básico',
      externalReference: 'ref-1',
      preapprovalPlanId: 'plan-basic',
      subscriptionStartDate: '2026-01-15T09:30:00-03:00',
      nextPaymentDate: '2026-02-15T12:30:00.000Z',
      collectorId: 'col-1',
      subscriptionInitPoint: 'https://pagamentos.example.com/init/777',
      transactionAmount: '149',
      frequencyType: 'monthly',
    };
    await setSubscription(company, subscription).expect(200);
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: company.email, password: company.password })
      .expect(200);
    expect(login.body).toMatchObject({
      ...subscription,
      subscriptionStartDate: '2026-01-15T12:30:00.000Z',
      nextPaymentDate: '2026-02-15T12:30:00.000Z',
      transactionAmount: '149.00',
    });
    for (const field of Object.keys(subscription)) {
      expect([field, typeof login.body[field]]).toEqual([field, 'string']);
    }
    expect(new Date(login.body.subscriptionStartDate as string).toISOString()).toBe(
      login.body.subscriptionStartDate,
    );
    const me = await t.http
      .get('/api/auth/me')
      .set('X-Access-Token', login.body.accessToken)
      .expect(200);
    for (const field of Object.keys(subscription)) {
      expect([field, me.body[field]]).toEqual([field, login.body[field]]);
    }
    await t.http
      .get(`/api/companies/${company.id}/settings`)
      .set('X-Access-Token', login.body.accessToken)
      .expect(200);
  });

  it('login shows every subscription field as null when there is no subscription', async () => {
    const company = await makeSubscriptionCompany();
    const login = await t.http
      .post('/api/auth/login')
      .send({ email: company.email, password: company.password })
      .expect(200);
    for (const field of [
      'subscriptionId',
      'payerId',
      'subscriptionStatus',
      'subscriptionReason',
      'externalReference',
      'preapprovalPlanId',
      'subscriptionStartDate',
      'nextPaymentDate',
      'collectorId',
      'subscriptionInitPoint',
      'transactionAmount',
      'frequencyType',
    ]) {
      expect([field, login.body[field]]).toEqual([field, null]);
    }
  });
});
