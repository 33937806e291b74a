import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { HealthRegistry } from '../../../src/common/health/health-registry';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany, uniqueEmail } from '../../support/test-app';
import { createDedicatedDatabase, execute } from './helpers/databases';
import { lines, spawnService, waitUntilHealthy } from './helpers/service-process';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** The health's details, which can fail to serialize, are shown only to the metrics token. */
const METRICS_TOKEN = 'errors-metrics-token-0123456789';
const OPERATOR = { Authorization: `Bearer ${METRICS_TOKEN}` };
const INTERNAL_ERROR = new RegExp(`^Erro interno do servidor \\(id do erro: (${UUID})\\)$`);

/** A 500 answer: the error body, a message with an error id and nothing of the cause; returns the id. */
function expectInternalError(response: request.Response, path: string, leaks: string[]): string {
  const message = expectErrorBody(response, 500, path);
  const match = INTERNAL_ERROR.exec(message);
  expect(match).not.toBeNull();
  for (const leak of [
    ...leaks,
    ' at ',
    '.ts:',
    '.js:',
    'Error:',
    'SELECT',
    'INSERT',
    'QueryFailed',
  ]) {
    expect([leak, response.text.includes(leak)]).toEqual([leak, false]);
  }
  return (match as RegExpExecArray)[1];
}

describe('errors and logs', () => {
  const { t } = useE2eFixture({ env: { METRICS_TOKEN } });

  describe('X-Request-Id', () => {
    it('is returned on every kind of answer, a new one each time', async () => {
      const company = await TestCompany.register(t.http);
      const answers = [
        await company.get('/api/auth/me'),
        await t.http.get('/api/auth/me'),
        await t.http.get('/api/nada'),
        await t.http.post('/api/auth/login').send({}),
        await t.http.get('/actuator/health'),
      ];
      const ids: string[] = answers.map((response) => response.headers['x-request-id']);
      for (const id of ids) {
        expect(id).toMatch(new RegExp(`^${UUID}$`));
      }
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('echoes the id the client sent', async () => {
      const company = await TestCompany.register(t.http);
      for (const id of ['trace-123', 'abc.DEF:42_x', 'a'.repeat(100)]) {
        const response = await company.get('/api/auth/me').set('X-Request-Id', id).expect(200);
        expect(response.headers['x-request-id']).toBe(id);
      }
      const failed = await t.http.get('/api/nada').set('X-Request-Id', 'trace-404');
      expect(failed.headers['x-request-id']).toBe('trace-404');
    });

    it.each([['has spaces'], ['a'.repeat(101)], ['<script>'], ['line\\nbreak']])(
      'replaces an unusable id (%s) with a new one',
      async (sent) => {
        const response = await t.http.get('/actuator/health/liveness').set('X-Request-Id', sent);
        expect(response.headers['x-request-id']).toMatch(new RegExp(`^${UUID}$`));
      },
    );
  });

  describe('an unexpected error answers 500 with an error id and never the cause', () => {
    it('for a failure while writing the answer (a health detail that cannot be serialized)', async () => {
      const registry = t.app.get(HealthRegistry);
      registry.register('queue', () =>
        Promise.resolve({ status: 'UP', details: { pending: BigInt(3) } }),
      );
      try {
        const first = await t.http.get('/actuator/health').set(OPERATOR);
        const second = await t.http.get('/actuator/health').set(OPERATOR);
        const firstId = expectInternalError(first, '/actuator/health', ['BigInt', 'serialize']);
        const secondId = expectInternalError(second, '/actuator/health', ['BigInt', 'serialize']);
        expect(firstId).not.toBe(secondId);
      } finally {
        registry.register('queue', () => Promise.resolve({ status: 'UP' }));
      }
      await t.http.get('/actuator/health').expect(200);
    });

    describe('on a database of its own', () => {
      const { t: own } = useE2eFixture({ database: 'errors', env: { METRICS_TOKEN } });

      it('for an SQL error (a table missing): no SQL, no table name, no stack in the answer', async () => {
        const company = await TestCompany.register(own.http);
        await execute(own.databaseUrl, 'ALTER TABLE login_failures RENAME TO login_failures_gone');
        try {
          const response = await own.http
            .post('/api/auth/login')
            .send({ email: company.email, password: company.password });
          expectInternalError(response, '/api/auth/login', [
            'login_failures',
            'relation',
            'does not exist',
            company.password,
          ]);
        } finally {
          await execute(
            own.databaseUrl,
            'ALTER TABLE login_failures_gone RENAME TO login_failures',
          );
        }
        await own.http
          .post('/api/auth/login')
          .send({ email: company.email, password: company.password })
          .expect(200);
      });

      it('for a lost database connection: 500 on the API, and health, readiness DOWN with 503', async () => {
        const company = await TestCompany.register(own.http);
        await own.app.get(DataSource).destroy();
        // The token was never looked up, so no cached session can answer for the database.
        const response = await own.http.get('/api/auth/me').set(company.auth);
        expectInternalError(response, '/api/auth/me', ['pool', 'access_tokens', company.token]);
        const health = await own.http.get('/actuator/health').set(OPERATOR).expect(503);
        expect(health.body.status).toBe('DOWN');
        expect(health.body.components.db.status).toBe('DOWN');
        expect(health.body.components.db.details).toMatchObject({
          database: 'PostgreSQL',
          validationQuery: 'isValid()',
        });
        expect((await own.http.get('/actuator/health/readiness').expect(503)).body).toEqual({
          status: 'DOWN',
        });
        await own.http.get('/actuator/health/liveness').expect(200);
      });
    });
  });

  describe('logs of the running service', () => {
    const adminPassword = 'logs-admin-password-0987';
    const password = 'senha-secreta-de-log-1';
    const wrongPassword = 'senha-errada-de-log-2';
    let stdout: string;
    let stderr: string;
    const secrets: string[] = [adminPassword, password, wrongPassword];
    let errorId: string;

    beforeAll(async () => {
      const database = await createDedicatedDatabase('logs');
      const dataDir = mkdtempSync(join(tmpdir(), 'campaign-service-logs-'));
      try {
        const service = await spawnService({
          DATABASE_URL: database.url,
          DATA_DIR: dataDir,
          ADMIN_PASSWORD: adminPassword,
          LOG_LEVEL: 'info',
        });
        try {
          await waitUntilHealthy(service);
          const http = request(service.baseUrl);
          const email = uniqueEmail('logs');
          const registered = await http
            .post('/api/auth/register')
            .set('ACCESS_TOKEN', `Bearer ${adminPassword}`)
            .send({ name: 'Empresa dos Logs', email, password })
            .expect(200);
          secrets.push(registered.body.accessToken as string);
          const login = await http.post('/api/auth/login').send({ email, password }).expect(200);
          secrets.push(login.body.accessToken as string);
          await http.post('/api/auth/login').send({ email, password: wrongPassword }).expect(400);
          await http
            .get('/api/auth/me')
            .set('X-Access-Token', login.body.accessToken as string)
            .set('X-Request-Id', 'trace-logs-0001')
            .expect(200);
          await http
            .patch(`/api/companies/${registered.body.companyId}/settings`)
            .set('X-Access-Token', registered.body.accessToken as string)
            .send({ password, accessToken: login.body.accessToken })
            .expect(400);
          await http
            .get('/api/admin/companies')
            .set('ACCESS_TOKEN', `Bearer ${adminPassword}`)
            .expect(200);
          await http
            .get('/api/admin/companies')
            .set('ACCESS_TOKEN', `Bearer ${wrongPassword}`)
            .expect(401);

          await execute(database.url, 'ALTER TABLE login_failures RENAME TO login_failures_gone');
          const failed = await http
            .post('/api/auth/login')
            .set('X-Request-Id', 'trace-logs-0500')
            .send({ email, password });
          errorId = expectInternalError(failed, '/api/auth/login', [password]);
          await execute(database.url, 'ALTER TABLE login_failures_gone RENAME TO login_failures');
        } finally {
          await service.stop('SIGTERM');
          stdout = service.stdout();
          stderr = service.stderr();
        }
      } finally {
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 120_000);

    it('are JSON, one object per line, on stdout', () => {
      expect(stderr).toBe('');
      const all = lines(stdout);
      expect(all.length).toBeGreaterThan(10);
      for (const line of all) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          parsed = undefined;
        }
        expect([line, typeof parsed]).toEqual([line, 'object']);
      }
    });

    it('carry the request id on every request line, the client’s own when it sent one', () => {
      const entries = lines(stdout).map(
        (line) =>
          JSON.parse(line) as {
            req?: { id?: string; url?: string };
            res?: { statusCode?: number };
          },
      );
      const requestLines = entries.filter((entry) => entry.req);
      expect(requestLines.length).toBeGreaterThanOrEqual(8);
      for (const entry of requestLines) {
        expect(typeof entry.req?.id).toBe('string');
        expect((entry.req?.id ?? '').length).toBeGreaterThan(0);
      }
      expect(requestLines).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            req: expect.objectContaining({ id: 'trace-logs-0001', url: '/api/auth/me' }),
            res: { statusCode: 200 },
          }),
          expect.objectContaining({
            req: expect.objectContaining({ id: 'trace-logs-0500', url: '/api/auth/login' }),
            res: { statusCode: 500 },
          }),
        ]),
      );
    });

    it('log the 500 under its error id, with the request id', () => {
      const entries = lines(stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
      const logged = entries.filter((entry) => entry.errorId === errorId);
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatchObject({
        level: 50,
        req: expect.objectContaining({ id: 'trace-logs-0500' }),
      });
      expect(logged[0].err).toEqual(
        expect.objectContaining({ message: expect.any(String), stack: expect.any(String) }),
      );
    });

    it('never contain a password, an access token or the admin password', () => {
      expect(secrets).toHaveLength(5);
      for (const secret of secrets) {
        expect([secret.slice(0, 6), (stdout + stderr).includes(secret)]).toEqual([
          secret.slice(0, 6),
          false,
        ]);
      }
    });
  });
});
