import type request from 'supertest';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { ADMIN_HEADER, TestCompany, uniqueEmail } from '../../support/test-app';
import { TestRedis, useTestRedis } from './helpers/redis';

interface Limits {
  limit: number;
  remaining: number;
  reset: number;
}

/** Reads the X-RateLimit-* headers and checks X-RateLimit-Reset: Unix seconds, in the future, at most 60 s away. */
function limitsOf(response: request.Response, sentAt: number): Limits {
  const limit = response.headers['x-ratelimit-limit'];
  const remaining = response.headers['x-ratelimit-remaining'];
  const reset = response.headers['x-ratelimit-reset'];
  expect([limit, remaining, reset].every((h) => typeof h === 'string' && /^\d+$/.test(h))).toBe(
    true,
  );
  const resetSeconds = Number(reset);
  expect(resetSeconds).toBeGreaterThanOrEqual(Math.floor(sentAt / 1000));
  expect(resetSeconds).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
  return { limit: Number(limit), remaining: Number(remaining), reset: resetSeconds };
}

async function timed(send: () => request.Test): Promise<[request.Response, number]> {
  const sentAt = Date.now();
  return [await send(), sentAt];
}

function expectRefused(
  response: request.Response,
  window: 'minuto' | 'hora',
  maxRetryAfter: number,
): void {
  expect(expectErrorBody(response, 429)).toBe(
    `Limite de requisições por ${window} excedido; tente novamente mais tarde`,
  );
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxRetryAfter);
  expect(response.headers['x-ratelimit-remaining']).toBe('0');
}

function expectNoRateLimitHeaders(response: request.Response): void {
  expect(response.headers['x-ratelimit-limit']).toBeUndefined();
  expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
  expect(response.headers['x-ratelimit-reset']).toBeUndefined();
}

const ACTUATOR_PATHS = [
  '/actuator/health',
  '/actuator/health/liveness',
  '/actuator/health/readiness',
  '/actuator/info',
  // Routing takes one trailing slash, and so does the exemption.
  '/actuator/health/',
];

describe('rate limits', () => {
  describe('per company and minute (RATE_LIMIT_PER_MINUTE=5)', () => {
    const { t } = useE2eFixture({ env: { RATE_LIMIT_PER_MINUTE: '5' } });

    it('counts down on every response and refuses the 6th request of the minute with 429, Retry-After and the error body', async () => {
      const company = await TestCompany.register(t.http);
      const requests = [
        () => company.get('/api/auth/me'),
        () => company.get(`/api/companies/${company.id}/settings`),
        () =>
          company.patch(`/api/companies/${company.id}/settings`, { pollCampaignsEnabled: 'nope' }),
        () => company.get('/api/nada'),
        () => company.get('/api/auth/me'),
      ];
      const expectedStatuses = [200, 200, 400, 404, 200];
      for (const [index, send] of requests.entries()) {
        const [response, sentAt] = await timed(send);
        expect(response.status).toBe(expectedStatuses[index]);
        expect(limitsOf(response, sentAt)).toMatchObject({ limit: 5, remaining: 4 - index });
      }
      const [refused, sentAt] = await timed(() => company.get('/api/auth/me'));
      expectRefused(refused, 'minuto', 60);
      expect(limitsOf(refused, sentAt)).toMatchObject({ limit: 5, remaining: 0 });
      expectErrorBody(await company.get(`/api/companies/${company.id}/settings`), 429);
    });

    it('keeps each company’s budget apart: one company’s exhaustion does not touch another', async () => {
      const busy = await TestCompany.register(t.http);
      const quiet = await TestCompany.register(t.http);
      for (let i = 0; i < 5; i += 1) {
        await busy.get('/api/auth/me').expect(200);
      }
      expectErrorBody(await busy.get('/api/auth/me'), 429);
      const [response, sentAt] = await timed(() => quiet.get('/api/auth/me'));
      expect(response.status).toBe(200);
      expect(limitsOf(response, sentAt)).toMatchObject({ limit: 5, remaining: 4 });
    });

    it('shares one budget between all tokens of a company', async () => {
      const company = await TestCompany.register(t.http);
      const second = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      for (let i = 0; i < 3; i += 1) {
        await company.get('/api/auth/me').expect(200);
      }
      const response = await t.http
        .get('/api/auth/me')
        .set('X-Access-Token', second.body.accessToken)
        .expect(200);
      expect(response.headers['x-ratelimit-remaining']).toBe('1');
    });

    it('applies a lower per-company rateLimitPerMinute set by the admin on the next request', async () => {
      const company = await TestCompany.register(t.http);
      await company.get('/api/auth/me').expect(200);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ rateLimitPerMinute: 2 })
        .expect(200);
      const [next, sentAt] = await timed(() => company.get('/api/auth/me'));
      expect(next.status).toBe(200);
      expect(limitsOf(next, sentAt)).toMatchObject({ limit: 2, remaining: 0 });
      expectRefused(await company.get('/api/auth/me'), 'minuto', 60);
    });

    it('applies a higher per-company rateLimitPerMinute, and null goes back to the default', async () => {
      const company = await TestCompany.register(t.http);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ rateLimitPerMinute: 8 })
        .expect(200);
      for (let i = 0; i < 6; i += 1) {
        const response = await company.get('/api/auth/me').expect(200);
        expect(response.headers['x-ratelimit-limit']).toBe('8');
        expect(response.headers['x-ratelimit-remaining']).toBe(String(7 - i));
      }
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ rateLimitPerMinute: null })
        .expect(200);
      const response = await company.get('/api/auth/me');
      expect(response.headers['x-ratelimit-limit']).toBe('5');
      expectRefused(response, 'minuto', 60);
    });
  });

  describe('per company and hour (RATE_LIMIT_PER_HOUR=3)', () => {
    const { t } = useE2eFixture({
      env: { RATE_LIMIT_PER_MINUTE: '100', RATE_LIMIT_PER_HOUR: '3' },
    });

    it('refuses the 4th request of the hour with 429 and a Retry-After of up to an hour; headers show the minute window', async () => {
      const company = await TestCompany.register(t.http);
      for (let i = 0; i < 3; i += 1) {
        const [response, sentAt] = await timed(() => company.get('/api/auth/me'));
        expect(response.status).toBe(200);
        expect(limitsOf(response, sentAt)).toMatchObject({ limit: 100, remaining: 99 - i });
      }
      const refused = await company.get('/api/auth/me');
      expect(expectErrorBody(refused, 429)).toBe(
        'Limite de requisições por hora excedido; tente novamente mais tarde',
      );
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(60);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
      expect(refused.headers['x-ratelimit-limit']).toBe('100');
    });

    it('applies a per-company rateLimitPerHour set by the admin', async () => {
      const company = await TestCompany.register(t.http);
      await t.http
        .patch(`/api/admin/companies/${company.id}`)
        .set(ADMIN_HEADER)
        .send({ rateLimitPerHour: 5 })
        .expect(200);
      for (let i = 0; i < 5; i += 1) {
        await company.get('/api/auth/me').expect(200);
      }
      expectErrorBody(await company.get('/api/auth/me'), 429);
    });
  });

  describe('requests without a company token (ANONYMOUS_RATE_LIMIT_PER_MINUTE=3) and /actuator', () => {
    const { t } = useE2eFixture({
      env: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_MINUTE: '50' },
    });

    it('limits them per client IP, while company tokens keep their own budget and /actuator is never limited', async () => {
      const company = await TestCompany.register(t.http); // anonymous request 1
      const first = await t.http
        .post('/api/auth/login')
        .send({ email: uniqueEmail(), password: 'segredo123' }); // 2
      expectErrorBody(first, 400);
      expect(first.headers['x-ratelimit-limit']).toBe('3');
      expect(first.headers['x-ratelimit-remaining']).toBe('1');
      const second = await t.http.get('/api/nada'); // 3
      expectErrorBody(second, 404);
      expect(second.headers['x-ratelimit-remaining']).toBe('0');

      const refusedLogin = await t.http
        .post('/api/auth/login')
        .send({ email: company.email, password: company.password });
      expectRefused(refusedLogin, 'minuto', 60);
      expectRefused(await t.http.get('/api/nada'), 'minuto', 60);
      expectRefused(
        await t.http.get('/api/auth/me').set('X-Access-Token', 'not-a-token'),
        'minuto',
        60,
      );
      expectRefused(await t.http.get('/api/docs-json'), 'minuto', 60);

      const own = await company.get('/api/auth/me').expect(200);
      expect(own.headers['x-ratelimit-limit']).toBe('50');
      expect(own.headers['x-ratelimit-remaining']).toBe('49');

      for (let i = 0; i < 3; i += 1) {
        for (const path of ACTUATOR_PATHS) {
          const response = await t.http.get(path);
          expect([path, response.status]).toEqual([path, 200]);
          expectNoRateLimitHeaders(response);
        }
      }
      // Routing ignores case, and so does the exemption (an unknown path under it: 404).
      const upperCase = await t.http.get('/ACTUATOR/NADA');
      expectErrorBody(upperCase, 404);
      expectNoRateLimitHeaders(upperCase);
    });
  });

  describe('shared by several instances through Redis', () => {
    const prefix = `campaign-service-test-${process.pid}-${Date.now()}:`;
    let redis: TestRedis;
    // Before the fixtures': the apps' environment names the Redis.
    beforeAll(async () => {
      redis = await useTestRedis();
    });
    const env = (): Record<string, string> => ({
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: prefix,
      RATE_LIMIT_PER_MINUTE: '5',
    });
    const { t: a } = useE2eFixture({ env });
    const { t: b } = useE2eFixture({ env });
    afterAll(async () => {
      await redis?.close(prefix);
    });

    it('refuses requests split across two instances once the shared limit is reached', async () => {
      const company = await TestCompany.register(a.http);
      const onB = (path: string): request.Test => b.http.get(path).set(company.auth);
      const sequence: Array<() => request.Test> = [
        () => company.get('/api/auth/me'),
        () => onB('/api/auth/me'),
        () => company.get('/api/auth/me'),
        () => onB(`/api/companies/${company.id}/settings`),
        () => company.get('/api/auth/me'),
      ];
      for (const [index, send] of sequence.entries()) {
        const [response, sentAt] = await timed(send);
        expect(response.status).toBe(200);
        expect(limitsOf(response, sentAt)).toMatchObject({ limit: 5, remaining: 4 - index });
      }
      expectRefused(await onB('/api/auth/me'), 'minuto', 60);
      expectRefused(await company.get('/api/auth/me'), 'minuto', 60);

      const other = await TestCompany.register(b.http);
      const response = await a.http.get('/api/auth/me').set(other.auth).expect(200);
      expect(response.headers['x-ratelimit-remaining']).toBe('4');
    });

    it('keeps its counters in Redis under REDIS_KEY_PREFIX', async () => {
      const company = await TestCompany.register(b.http);
      await company.get('/api/auth/me').expect(200);
      const keys = await redis.client.keys(`${prefix}*`);
      expect(keys).toEqual(
        expect.arrayContaining([
          `${prefix}rl:{company:${company.id}:minute:default}:hits`,
          `${prefix}rl:{company:${company.id}:hour:default}:hits`,
        ]),
      );
      expect(
        await redis.client.get(`${prefix}rl:{company:${company.id}:minute:default}:hits`),
      ).toBe('1');
    });
  });
});
