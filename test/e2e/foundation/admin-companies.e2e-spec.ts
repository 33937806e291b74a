import type request from 'supertest';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, ADMIN_PASSWORD, TestCompany } from '../../support/test-app';

/** The system defaults startTestApp runs with (see test/support/test-app.ts and docs/OPERATIONS.md, "Configuration"). */
const SYSTEM = {
  rateLimitPerMinute: 100000,
  rateLimitPerHour: 1000000,
  campaignCreationsPerHour: 10,
  automationLimit: 10,
  databaseLimit: 20,
};

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function companyRow(id: number): Promise<Record<string, unknown>> {
  const { rows } = await db().query(`SELECT * FROM companies WHERE id = $1`, [id]);
  return rows[0] as Record<string, unknown>;
}

async function subscriptionRow(companyId: number): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db().query(`SELECT * FROM company_subscriptions WHERE company_id = $1`, [
    companyId,
  ]);
  return rows[0] as Record<string, unknown> | undefined;
}

describe('admin routes /api/admin/companies', () => {
  const { t } = useE2eFixture();

  const patch = (id: number | string, body: unknown): request.Test =>
    t.http
      .patch(`/api/admin/companies/${id}`)
      .set(ADMIN_HEADER)
      .send(body as object);
  const putSubscription = (id: number | string, body: unknown): request.Test =>
    t.http
      .put(`/api/admin/companies/${id}/subscription`)
      .set(ADMIN_HEADER)
      .send(body as object);

  describe('GET', () => {
    it('lists every company, oldest first, with its effective limits and flags', async () => {
      const first = await TestCompany.register(t.http, 'Primeira');
      const second = await TestCompany.register(t.http, 'Segunda');
      const response = await t.http.get('/api/admin/companies').set(ADMIN_HEADER).expect(200);
      const list = response.body as Array<{ id: number; name: string }>;
      expect(Array.isArray(list)).toBe(true);
      const ids = list.map((c) => c.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
      expect(ids.indexOf(second.id)).toBeGreaterThan(ids.indexOf(first.id));
      expect(list.find((c) => c.id === second.id)).toMatchObject({
        name: 'Segunda',
        email: second.email,
      });
      expect(list).toHaveLength(await countRows('companies'));
    });

    it('returns one company with every field of the admin view', async () => {
      const company = await TestCompany.register(t.http, 'Loja Um');
      const response = await t.http
        .get(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .expect(200);
      expect(response.body).toEqual({
        id: company.id,
        name: 'Loja Um',
        email: company.email,
        registrationType: 'admin_password',
        isActive: true,
        blockedContactsEnabled: true,
        pollCampaignsEnabled: true,
        automationsEnabled: true,
        ...SYSTEM,
        hasServiceAccess: true,
        subscription: null,
        createdAt: expect.stringMatching(ISO_UTC),
        updatedAt: expect.stringMatching(ISO_UTC),
      });
    });

    it('answers an unknown company with 404 and the error body', async () => {
      const response = await t.http.get('/api/admin/companies/2147483647').set(ADMIN_HEADER);
      expect(expectErrorBody(response, 404, '/api/admin/companies/2147483647')).toBe(
        'Empresa não encontrada',
      );
    });

    it.each(['abc', '0', '-1', '1.5', '99999999999', '2147483648'])(
      'answers the non-numeric or out-of-range id %s with 400 on every admin route',
      async (id) => {
        expectErrorBody(await t.http.get(`/api/admin/companies/${id}`).set(ADMIN_HEADER), 400);
        expectErrorBody(await patch(id, { isActive: false }), 400);
        expectErrorBody(await putSubscription(id, { subscriptionStatus: 'active' }), 400);
      },
    );
  });

  describe('PATCH /api/admin/companies/{companyId}', () => {
    it.each<[string, unknown, string, unknown]>([
      ['isActive', false, 'is_active', false],
      ['registrationType', 'subscription', 'registration_type', 'subscription'],
      ['rateLimitPerMinute', 120, 'rate_limit_per_minute', 120],
      ['rateLimitPerHour', 5000, 'rate_limit_per_hour', 5000],
      ['campaignCreationsPerHour', 0, 'campaign_creations_per_hour', 0],
      ['automationLimit', 3, 'automation_limit', 3],
      ['databaseLimit', 0, 'database_limit', 0],
      ['automationsEnabled', false, 'automations_enabled', false],
      ['blockedContactsEnabled', false, 'blocked_contacts_enabled', false],
      ['pollCampaignsEnabled', false, 'poll_campaigns_enabled', false],
      ['rateLimitPerMinute', 1000000, 'rate_limit_per_minute', 1000000],
      ['rateLimitPerHour', 100000000, 'rate_limit_per_hour', 100000000],
    ])(
      'changes %s to %p, stores it and leaves every other field alone',
      async (field, value, column, stored) => {
        const company = await TestCompany.register(t.http);
        const before = await companyRow(company.id);
        const response = await patch(company.id, { [field]: value });
        expect(response.status).toBe(200);
        expect((response.body as Record<string, unknown>)[field]).toEqual(value);
        const after = await companyRow(company.id);
        expect(after[column]).toEqual(stored);
        const untouched = Object.keys(before).filter(
          (key) => key !== column && key !== 'updated_at',
        );
        for (const key of untouched) {
          expect([key, after[key]]).toEqual([key, before[key]]);
        }
        expect((after.updated_at as Date).getTime()).toBeGreaterThanOrEqual(
          (before.updated_at as Date).getTime(),
        );
      },
    );

    it('changes several fields at once', async () => {
      const company = await TestCompany.register(t.http);
      const response = await patch(company.id, {
        automationLimit: 4,
        databaseLimit: 5,
        pollCampaignsEnabled: false,
        rateLimitPerHour: 777,
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        automationLimit: 4,
        databaseLimit: 5,
        pollCampaignsEnabled: false,
        rateLimitPerHour: 777,
        rateLimitPerMinute: SYSTEM.rateLimitPerMinute,
      });
    });

    it.each([
      'rateLimitPerMinute',
      'rateLimitPerHour',
      'campaignCreationsPerHour',
      'automationLimit',
      'databaseLimit',
    ])('puts %s back to the system default when given null', async (field) => {
      const company = await TestCompany.register(t.http);
      await patch(company.id, { [field]: 7 }).then((r) => expect(r.status).toBe(200));
      expect(
        (await t.http.get(`/api/admin/companies/${company.id}`).set(ADMIN_HEADER)).body[field],
      ).toBe(7);
      const response = await patch(company.id, { [field]: null });
      expect(response.status).toBe(200);
      expect(response.body[field]).toBe(SYSTEM[field as keyof typeof SYSTEM]);
      const column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      expect((await companyRow(company.id))[column]).toBeNull();
    });

    it('accepts an empty body as "change nothing"', async () => {
      const company = await TestCompany.register(t.http);
      const before = await companyRow(company.id);
      const response = await patch(company.id, {});
      expect(response.status).toBe(200);
      const after = await companyRow(company.id);
      expect({ ...after, updated_at: null }).toEqual({ ...before, updated_at: null });
    });

    it.each<[string, unknown]>([
      ['isActive', 'false'],
      ['isActive', 1],
      ['isActive', null],
      ['registrationType', 'trial'],
      ['registrationType', 'ADMIN_PASSWORD'],
      ['registrationType', null],
      ['rateLimitPerMinute', 0],
      ['rateLimitPerMinute', -1],
      ['rateLimitPerMinute', 1.5],
      ['rateLimitPerMinute', '10'],
      ['rateLimitPerMinute', 1000001],
      ['rateLimitPerMinute', true],
      ['rateLimitPerHour', 0],
      ['rateLimitPerHour', 100000001],
      ['rateLimitPerHour', 'x'],
      ['campaignCreationsPerHour', -1],
      ['campaignCreationsPerHour', 2.5],
      ['campaignCreationsPerHour', 1000001],
      ['automationLimit', -1],
      ['automationLimit', '3'],
      ['automationLimit', 100001],
      ['databaseLimit', -1],
      ['databaseLimit', 100001],
      ['databaseLimit', {}],
      ['automationsEnabled', 'yes'],
      ['automationsEnabled', null],
      ['blockedContactsEnabled', 0],
      ['blockedContactsEnabled', null],
      ['pollCampaignsEnabled', 'true'],
      ['pollCampaignsEnabled', null],
      ['name', 'Novo nome'],
      ['email', 'outro@teste.com.br'],
      ['plan', 'gold'],
    ])('refuses %s = %p with 400 naming the field and changes nothing', async (field, value) => {
      const company = await TestCompany.register(t.http);
      const before = await companyRow(company.id);
      const response = await patch(company.id, { [field]: value });
      const message = expectErrorBody(response, 400, `/api/admin/companies/${company.id}`);
      expect(message).toMatch(new RegExp(`^\\{${field}=[^=]+\\}$`));
      expect(await companyRow(company.id)).toEqual(before);
    });

    it('names the type error, not a range error, for a number written as text', async () => {
      const company = await TestCompany.register(t.http);
      const response = await patch(company.id, { rateLimitPerMinute: '10' });
      expect(expectErrorBody(response, 400)).toBe(
        '{rateLimitPerMinute=deve ser um número inteiro}',
      );
    });

    it('applies nothing when one field of several is invalid', async () => {
      const company = await TestCompany.register(t.http);
      const before = await companyRow(company.id);
      const response = await patch(company.id, { isActive: false, automationLimit: -1 });
      expect(expectErrorBody(response, 400)).toBe('{automationLimit=não pode ser negativo}');
      expect(await companyRow(company.id)).toEqual(before);
    });

    it.each([['[]'], ['"texto"'], ['42']])(
      'refuses the body %s, which is not an object, with 400',
      async (raw) => {
        const company = await TestCompany.register(t.http);
        const before = await companyRow(company.id);
        const response = await t.http
          .patch(`/api/admin/companies/${company.id}`)
          .set(ADMIN_HEADER)
          .set('Content-Type', 'application/json')
          .send(raw);
        expectErrorBody(response, 400);
        expect(await companyRow(company.id)).toEqual(before);
      },
    );

    it('answers an unknown company with 404 and creates nothing', async () => {
      const before = await countRows('companies');
      expectErrorBody(await patch(2147483647, { isActive: false }), 404);
      expect(await countRows('companies')).toBe(before);
    });
  });

  describe('PUT /api/admin/companies/{companyId}/subscription', () => {
    const fullSubscription = {
      subscriptionId: '2c938084726fca480172750000000000',
      payerId: 'payer-123',
      subscriptionStatus: 'authorized',
      subscriptionReason: 'Plano Profissional',
      externalReference: 'pedido-42',
      preapprovalPlanId: 'plan-pro',
      subscriptionStartDate: '2026-11-01T10:00:00-03:00',
      nextPaymentDate: '2026-12-01T13:00:00Z',
      collectorId: 'collector-9',
      subscriptionInitPoint: 'https://pagamentos.example.com/checkout/abc',
      transactionAmount: '99.9',
      frequencyType: 'monthly',
    };

    it('stores every subscription field of docs/API-RULES.md §2 and returns them (dates in UTC, amount with two decimals)', async () => {
      const company = await TestCompany.register(t.http);
      const response = await putSubscription(company.id, fullSubscription);
      expect(response.status).toBe(200);
      expect(response.body.subscription).toEqual({
        ...fullSubscription,
        subscriptionStartDate: '2026-11-01T13:00:00.000Z',
        nextPaymentDate: '2026-12-01T13:00:00.000Z',
        transactionAmount: '99.90',
      });
      expect(response.body.hasServiceAccess).toBe(true);
      const row = await subscriptionRow(company.id);
      expect(row).toMatchObject({
        subscription_id: fullSubscription.subscriptionId,
        payer_id: 'payer-123',
        status: 'authorized',
        reason: 'Plano Profissional',
        external_reference: 'pedido-42',
        preapproval_plan_id: 'plan-pro',
        collector_id: 'collector-9',
        init_point: fullSubscription.subscriptionInitPoint,
        transaction_amount: '99.90',
        frequency_type: 'monthly',
      });
      expect((row?.start_date as Date).toISOString()).toBe('2026-11-01T13:00:00.000Z');
      expect((row?.next_payment_date as Date).toISOString()).toBe('2026-12-01T13:00:00.000Z');
      const fetched = await t.http
        .get(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .expect(200);
      expect(fetched.body.subscription).toEqual(response.body.subscription);
    });

    it('replaces the whole subscription: fields left out become null, and the company keeps one row', async () => {
      const company = await TestCompany.register(t.http);
      await putSubscription(company.id, fullSubscription).then((r) => expect(r.status).toBe(200));
      const response = await putSubscription(company.id, { subscriptionStatus: 'paused' });
      expect(response.status).toBe(200);
      expect(response.body.subscription).toEqual({
        subscriptionId: null,
        payerId: null,
        subscriptionStatus: 'paused',
        subscriptionReason: null,
        externalReference: null,
        preapprovalPlanId: null,
        subscriptionStartDate: null,
        nextPaymentDate: null,
        collectorId: null,
        subscriptionInitPoint: null,
        transactionAmount: null,
        frequencyType: null,
      });
      expect(await countRows('company_subscriptions', 'company_id = $1', [company.id])).toBe(1);
    });

    it.each<[string, unknown]>([
      ['subscriptionStartDate', 'ontem'],
      ['subscriptionStartDate', '2026-02-30T00:00:00Z'],
      ['subscriptionStartDate', '2026-13-01T00:00:00Z'],
      ['nextPaymentDate', '01/12/2026'],
      ['nextPaymentDate', 1764547200000],
      ['transactionAmount', '99.999'],
      ['transactionAmount', '-10.00'],
      ['transactionAmount', '1e3'],
      ['transactionAmount', '12,50'],
      ['transactionAmount', 99.9],
      ['transactionAmount', '1234567890123'],
      ['subscriptionStatus', 42],
      ['subscriptionStatus', 's'.repeat(41)],
      ['subscriptionId', 'x'.repeat(101)],
      ['subscriptionReason', 'r'.repeat(256)],
      ['subscriptionInitPoint', 'u'.repeat(501)],
      ['frequencyType', ['monthly']],
      ['plan', 'gold'],
    ])('refuses %s = %p with 400 naming the field and changes nothing', async (field, value) => {
      const company = await TestCompany.register(t.http);
      await putSubscription(company.id, fullSubscription).then((r) => expect(r.status).toBe(200));
      const before = await subscriptionRow(company.id);
      const response = await putSubscription(company.id, { ...fullSubscription, [field]: value });
      const message = expectErrorBody(
        response,
        400,
        `/api/admin/companies/${company.id}/subscription`,
      );
      expect(message).toMatch(new RegExp(`^\\{${field}=[^=]+\\}$`));
      expect(await subscriptionRow(company.id)).toEqual(before);
    });

    it('states the real maximum length in the message', async () => {
      const company = await TestCompany.register(t.http);
      const response = await putSubscription(company.id, { payerId: 'p'.repeat(101) });
      expect(expectErrorBody(response, 400)).toBe('{payerId=deve ter no máximo 100 caracteres}');
    });

    it('creates no subscription when the first one sent is invalid', async () => {
      const company = await TestCompany.register(t.http);
      expectErrorBody(await putSubscription(company.id, { transactionAmount: 'caro' }), 400);
      expect(await countRows('company_subscriptions', 'company_id = $1', [company.id])).toBe(0);
    });

    it('answers an unknown company with 404 and stores nothing', async () => {
      const before = await countRows('company_subscriptions');
      expectErrorBody(await putSubscription(2147483647, fullSubscription), 404);
      expect(await countRows('company_subscriptions')).toBe(before);
    });
  });

  describe('admin credential', () => {
    let company: TestCompany;

    beforeAll(async () => {
      company = await TestCompany.register(t.http);
    });

    const routes = (): Array<[string, () => request.Test]> => [
      ['GET /api/admin/companies', () => t.http.get('/api/admin/companies')],
      ['GET /api/admin/companies/{id}', () => t.http.get(`/api/admin/companies/${company.id}`)],
      [
        'PATCH /api/admin/companies/{id}',
        () => t.http.patch(`/api/admin/companies/${company.id}`).send({ isActive: false }),
      ],
      [
        'PUT /api/admin/companies/{id}/subscription',
        () =>
          t.http
            .put(`/api/admin/companies/${company.id}/subscription`)
            .send({ subscriptionStatus: 'cancelled' }),
      ],
    ];

    const credentials: Array<[string, Record<string, string>, RegExp]> = [
      ['missing', {}, /ausente/],
      ['empty', { ACCESS_TOKEN: '' }, /ausente/],
      ['blank', { ACCESS_TOKEN: '   ' }, /ausente/],
      ['without Bearer', { ACCESS_TOKEN: ADMIN_PASSWORD }, /mal formatada/],
      ['with another scheme', { ACCESS_TOKEN: `Basic ${ADMIN_PASSWORD}` }, /mal formatada/],
      ['Bearer alone', { ACCESS_TOKEN: 'Bearer' }, /mal formatada/],
      ['wrong', { ACCESS_TOKEN: 'Bearer not-the-admin-password' }, /inválida/],
      [
        'the right password with a suffix',
        { ACCESS_TOKEN: `Bearer ${ADMIN_PASSWORD}x` },
        /inválida/,
      ],
      ['sent as Authorization instead', { Authorization: `Bearer ${ADMIN_PASSWORD}` }, /ausente/],
    ];

    it.each(credentials)(
      'refuses a %s credential with 401 on every admin route, changing nothing',
      async (_label, headers, text) => {
        const before = await companyRow(company.id);
        for (const [name, send] of routes()) {
          const response = await send().set(headers);
          expect([name, response.status]).toEqual([name, 401]);
          expect(expectErrorBody(response, 401)).toMatch(text);
        }
        expect(await companyRow(company.id)).toEqual(before);
        expect(await countRows('company_subscriptions', 'company_id = $1', [company.id])).toBe(0);
      },
    );

    it('does not take a company access token as the admin credential', async () => {
      for (const [name, send] of routes()) {
        const response = await send().set(company.auth);
        expect([name, response.status]).toEqual([name, 401]);
        expectErrorBody(response, 401);
      }
    });

    it('checks the credential before the input: a bad body without credential is 401, not 400', async () => {
      const response = await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .send({ automationLimit: -1 });
      expectErrorBody(response, 401);
      const unknown = await t.http.get('/api/admin/companies/abc');
      expectErrorBody(unknown, 401);
    });
  });

  describe('changes take effect on the company’s next request', () => {
    it('a new automationLimit shows in the next login and me', async () => {
      const company = await TestCompany.register(t.http);
      await company.get('/api/auth/me').expect(200);
      await patch(company.id, { automationLimit: 42 }).then((r) => expect(r.status).toBe(200));
      const login = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      expect(login.status).toBe(200);
      expect(login.body.automationLimit).toBe(42);
      expect((await company.get('/api/auth/me').expect(200)).body.automationLimit).toBe(42);
      await patch(company.id, { automationLimit: null }).then((r) => expect(r.status).toBe(200));
      expect((await company.get('/api/auth/me').expect(200)).body.automationLimit).toBe(
        SYSTEM.automationLimit,
      );
    });

    it('feature flags show in the next me and login', async () => {
      const company = await TestCompany.register(t.http);
      await company.get('/api/auth/me').expect(200);
      await patch(company.id, {
        automationsEnabled: false,
        blockedContactsEnabled: false,
        pollCampaignsEnabled: false,
      }).then((r) => expect(r.status).toBe(200));
      const flags = {
        automationsEnabled: false,
        blockedContactsEnabled: false,
        pollCampaignsEnabled: false,
      };
      expect((await company.get('/api/auth/me').expect(200)).body).toMatchObject(flags);
      const login = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      expect(login.body).toMatchObject(flags);
    });

    it('isActive=false makes the very next request with an existing token 401, and true restores it', async () => {
      const company = await TestCompany.register(t.http);
      await company.get('/api/auth/me').expect(200);
      await patch(company.id, { isActive: false }).then((r) => expect(r.status).toBe(200));
      expectErrorBody(await company.get('/api/auth/me'), 401);
      expectErrorBody(await company.get(`/api/companies/${company.id}/settings`), 401);
      const login = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      expectErrorBody(login, 400);
      await patch(company.id, { isActive: true }).then((r) => expect(r.status).toBe(200));
      await company.get('/api/auth/me').expect(200);
      await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password })
        .expect(200);
    });
  });
});
