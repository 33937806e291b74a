import { createHash } from 'node:crypto';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestCompany, uniqueEmail } from '../../support/test-app';

describe('authentication', () => {
  const { t } = useE2eFixture();

  describe('POST /api/auth/register', () => {
    it('registers a company with the admin credential and returns the session fields of docs/API-RULES.md §2', async () => {
      const email = uniqueEmail();
      const response = await t.http
        .post('/api/auth/register')
        .set(ADMIN_HEADER)
        .send({ name: 'Loja da Maria', email, password: 'segredo123' })
        .expect(200);
      expect(response.body).toEqual({
        accessToken: expect.any(String),
        tokenType: 'Access',
        companyId: expect.any(Number),
        companyName: 'Loja da Maria',
        companyEmail: email,
        blockedContactsEnabled: true,
        pollCampaignsEnabled: true,
        automationsEnabled: true,
        automationLimit: 10,
        expiresAt: null,
        message: null,
      });
      expect(response.body.accessToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const { rows } = await db().query(
        `SELECT c.registration_type, c.password_hash, t.token_hash FROM companies c JOIN access_tokens t ON t.company_id = c.id WHERE c.id = $1`,
        [response.body.companyId],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].registration_type).toBe('admin_password');
      expect(rows[0].password_hash).toMatch(/^\$2[aby]\$10\$/);
      expect(rows[0].password_hash).not.toContain('segredo123');
      expect(rows[0].token_hash).toBe(
        createHash('sha256').update(response.body.accessToken).digest('hex'),
      );
    });

    it('defaults the name to the part of the e-mail before the at sign', async () => {
      const email = uniqueEmail('padaria');
      const response = await t.http
        .post('/api/auth/register')
        .set(ADMIN_HEADER)
        .send({ email, password: 'segredo123' })
        .expect(200);
      expect(response.body.companyName).toBe(email.split('@')[0]);
    });

    it('accepts a long password (no maximum) and a 100-character name', async () => {
      await t.http
        .post('/api/auth/register')
        .set(ADMIN_HEADER)
        .send({ name: 'n'.repeat(100), email: uniqueEmail(), password: 'p'.repeat(500) })
        .expect(200);
    });

    it.each([
      ['missing', {}],
      ['empty', { ACCESS_TOKEN: '' }],
      ['without Bearer', { ACCESS_TOKEN: 'test-admin-password-0123' }],
      ['wrong', { ACCESS_TOKEN: 'Bearer wrong-password' }],
    ])('refuses a %s admin credential with 401 and creates nothing', async (_label, headers) => {
      const email = uniqueEmail();
      const response = await t.http
        .post('/api/auth/register')
        .set(headers)
        .send({ email, password: 'segredo123' });
      expectErrorBody(response, 401, '/api/auth/register');
      expect(await countRows('companies', 'email = $1', [email])).toBe(0);
    });

    it.each([
      ['no e-mail', { password: 'segredo123' }, 'email'],
      ['invalid e-mail', { email: 'not-an-email', password: 'segredo123' }, 'email'],
      [
        'e-mail over 100 characters',
        { email: `${'a'.repeat(95)}@x.com.br`, password: 'segredo123' },
        'email',
      ],
      ['no password', { email: 'x@y.com.br' }, 'password'],
      ['short password', { email: 'x@y.com.br', password: '12345' }, 'password'],
      [
        'name over 100 characters',
        { name: 'n'.repeat(101), email: 'x@y.com.br', password: 'segredo123' },
        'name',
      ],
      ['name not a string', { name: 42, email: 'x@y.com.br', password: 'segredo123' }, 'name'],
      ['an unknown field', { email: 'x@y.com.br', password: 'segredo123', plan: 'gold' }, 'plan'],
    ])('refuses %s with 400 naming the field', async (_label, body, field) => {
      const before = await countRows('companies');
      const response = await t.http.post('/api/auth/register').set(ADMIN_HEADER).send(body);
      const message = expectErrorBody(response, 400);
      expect(message).toMatch(new RegExp(`^\\{.*\\b${field}=[^,}]+`));
      expect(await countRows('companies')).toBe(before);
    });

    it('refuses an e-mail already registered, in any letter case', async () => {
      const company = await TestCompany.register(t.http);
      const response = await t.http
        .post('/api/auth/register')
        .set(ADMIN_HEADER)
        .send({ email: company.email.toUpperCase(), password: 'segredo123' });
      expect(expectErrorBody(response, 400)).toBe('E-mail já cadastrado');
      expect(await countRows('companies', 'lower(email) = lower($1)', [company.email])).toBe(1);
    });

    it('answers malformed JSON with 400 and the error body', async () => {
      const response = await t.http
        .post('/api/auth/register')
        .set(ADMIN_HEADER)
        .set('Content-Type', 'application/json')
        .send('{"email": "x@y.com",');
      expect(expectErrorBody(response, 400)).toBe('JSON malformado no corpo da requisição');
    });

    it('answers a body over the size limit with 413 and the error body', async () => {
      const response = await t.http
        .post('/api/auth/register')
        .set(ADMIN_HEADER)
        .send({ email: 'x@y.com.br', password: 'x'.repeat(2 * 1024 * 1024) });
      expectErrorBody(response, 413);
    });
  });

  describe('POST /api/auth/login', () => {
    it('returns a new token and the subscription fields (null without a subscription)', async () => {
      const company = await TestCompany.register(t.http);
      const response = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password })
        .expect(200);
      expect(response.body).toMatchObject({
        tokenType: 'Access',
        companyId: company.id,
        companyEmail: company.email,
        automationsEnabled: true,
        automationLimit: 10,
        expiresAt: null,
        message: null,
        subscriptionId: null,
        subscriptionStatus: null,
        transactionAmount: null,
        frequencyType: null,
      });
      expect(response.body.accessToken).not.toBe(company.token);
      // Earlier tokens stay valid.
      await company.get('/api/auth/me').expect(200);
      await t.http.get('/api/auth/me').set('X-Access-Token', response.body.accessToken).expect(200);
    });

    it.each([
      ['a wrong password', (c: TestCompany) => ({ email: c.email, password: 'wrong-password' })],
      ['an unknown e-mail', () => ({ email: uniqueEmail('ninguem'), password: 'segredo123' })],
    ])('refuses %s with 400', async (_label, body) => {
      const company = await TestCompany.register(t.http);
      const response = await t.http.post('/api/auth/login').send(body(company));
      expect(expectErrorBody(response, 400, '/api/auth/login')).toBe('E-mail ou senha inválidos');
    });

    it.each([
      ['no body', undefined],
      ['a short password', { email: 'a@b.com.br', password: '123' }],
      ['an invalid e-mail', { email: 'nope', password: 'segredo123' }],
    ])('validates %s with 400', async (_label, body) => {
      const response = await t.http.post('/api/auth/login').send(body);
      expect(expectErrorBody(response, 400)).toMatch(/^\{.+=.+\}$/);
    });

    it('refuses a deactivated company with 400, and its tokens answer 401', async () => {
      const company = await TestCompany.register(t.http);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ isActive: false })
        .expect(200);
      const login = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      expect(expectErrorBody(login, 400)).toMatch(/desativada/);
      expectErrorBody(await company.get('/api/auth/me'), 401);
    });

    it('answers 429 with Retry-After after 10 failed logins for one e-mail and IP, even with the right password', async () => {
      const company = await TestCompany.register(t.http);
      for (let i = 0; i < 10; i += 1) {
        expectErrorBody(
          await t.http
            .post('/api/auth/login')
            .send({ email: company.email, password: 'wrong-pass' }),
          400,
        );
      }
      const blocked = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      expectErrorBody(blocked, 429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(15 * 60);
      // Another e-mail from the same IP is not affected.
      const other = await TestCompany.register(t.http);
      await t.http
        .post('/api/auth/login')
        .send({ email: other.email, password: other.password })
        .expect(200);
    });
  });

  describe('GET /api/auth/me and POST /api/auth/logout', () => {
    it('echoes the presented token and the company', async () => {
      const company = await TestCompany.register(t.http, 'Mercado Central');
      const response = await company.get('/api/auth/me').expect(200);
      expect(response.body).toMatchObject({
        accessToken: company.token,
        tokenType: 'Access',
        companyId: company.id,
        companyName: 'Mercado Central',
        companyEmail: company.email,
        expiresAt: null,
        message: null,
      });
    });

    it.each([
      ['no token', {}],
      ['an unknown token', { 'X-Access-Token': 'not-a-real-token' }],
      ['an empty token', { 'X-Access-Token': '' }],
    ])('answers %s with 401 and the error body', async (_label, headers) => {
      const response = await t.http.get('/api/auth/me').set(headers);
      expect(expectErrorBody(response, 401, '/api/auth/me')).toBe(
        'Token de acesso inválido ou ausente',
      );
    });

    it('logout revokes only the presented token (204), and the revoked token answers 401', async () => {
      const company = await TestCompany.register(t.http);
      const second = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      await company.post('/api/auth/logout').expect(204);
      expectErrorBody(await company.get('/api/auth/me'), 401);
      await t.http.get('/api/auth/me').set('X-Access-Token', second.body.accessToken).expect(200);
      const { rows } = await db().query(
        `SELECT count(*)::int AS n FROM access_tokens WHERE company_id = $1 AND revoked_at IS NOT NULL`,
        [company.id],
      );
      expect(rows[0].n).toBe(1);
    });
  });
});
