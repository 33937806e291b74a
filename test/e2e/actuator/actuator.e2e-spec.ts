import { readFileSync } from 'node:fs';
import { arch, availableParallelism, release, type } from 'node:os';
import { join } from 'node:path';
import type request from 'supertest';
import { ComponentHealth, HealthRegistry } from '../../../src/common/health/health-registry';
import { useE2eFixture } from '../../support/e2e-fixture';

const PACKAGE = JSON.parse(
  readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8'),
) as {
  name: string;
  description: string;
  version: string;
};

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

const UP_QUEUE = (): Promise<ComponentHealth> =>
  Promise.resolve({ status: 'UP', details: { pending: 0 } });

const METRICS_TOKEN = 'actuator-metrics-token-0123456789';
const OPERATOR = { Authorization: `Bearer ${METRICS_TOKEN}` };

function expectNoRateLimitHeaders(response: request.Response): void {
  expect(Object.keys(response.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
}

describe('actuator and API documentation', () => {
  const { t } = useE2eFixture({
    env: { APP_TIMEZONE: 'Europe/Lisbon', ANONYMOUS_RATE_LIMIT_PER_MINUTE: '1', METRICS_TOKEN },
  });
  let registry: HealthRegistry;
  beforeAll(() => {
    registry = t.app.get(HealthRegistry);
  });
  afterEach(() => {
    registry.register('queue', UP_QUEUE);
  });

  describe('GET /actuator/info', () => {
    it('describes the application, build, runtime, system and process with real values, without auth', async () => {
      const response = await t.http.get('/actuator/info').expect(200);
      expect(response.body).toEqual({
        app: {
          name: PACKAGE.name,
          description: PACKAGE.description,
          version: PACKAGE.version,
          timezone: 'Europe/Lisbon',
        },
        build: {
          artifact: PACKAGE.name,
          name: PACKAGE.name,
          time: expect.stringMatching(ISO_UTC),
          version: PACKAGE.version,
          group: expect.any(String),
        },
        java: {
          version: process.versions.node,
          vendor: expect.any(String),
          runtime: { name: 'Node.js', version: process.version },
          jvm: { name: 'V8', vendor: expect.any(String), version: process.versions.v8 },
        },
        os: { name: type(), version: release(), arch: arch() },
        process: { pid: process.pid },
      });
      expect(response.body.app.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(new Date(response.body.build.time as string).getTime()).toBeLessThanOrEqual(
        Date.now(),
      );
      expect(response.body.build.group.length).toBeGreaterThan(0);
      expectNoRateLimitHeaders(response);
    });
  });

  describe('GET /actuator/health', () => {
    it('answers 200 UP in the Spring Boot Actuator shape with the six components, their details to the metrics token', async () => {
      const response = await t.http.get('/actuator/health').set(OPERATOR).expect(200);
      const body = response.body as { status: string; components: Record<string, ComponentHealth> };
      expect(body.status).toBe('UP');
      expect(Object.keys(body).sort()).toEqual(['components', 'status']);
      expect(Object.keys(body.components).sort()).toEqual([
        'cpu',
        'db',
        'diskSpace',
        'memory',
        'ping',
        'queue',
      ]);
      expect(body.components.db).toEqual({
        status: 'UP',
        details: { database: 'PostgreSQL', validationQuery: 'isValid()' },
      });
      expect(body.components.ping).toEqual({ status: 'UP' });
      expect(body.components.diskSpace).toEqual({
        status: 'UP',
        details: {
          total: expect.any(Number),
          free: expect.any(Number),
          threshold: 10485760,
          path: t.config.dataDir,
          exists: true,
        },
      });
      const disk = body.components.diskSpace.details as { total: number; free: number };
      expect(disk.total).toBeGreaterThan(0);
      expect(disk.free).toBeGreaterThan(10485760);
      expect(disk.free).toBeLessThanOrEqual(disk.total);
      for (const name of ['queue', 'memory', 'cpu']) {
        expect([name, body.components[name].status]).toEqual([name, 'UP']);
        expect(typeof body.components[name].details).toBe('object');
      }
      expect(body.components.cpu.details).toMatchObject({
        cores: availableParallelism(),
        systemLoadAverage: {
          oneMinute: expect.any(Number),
          fiveMinutes: expect.any(Number),
          fifteenMinutes: expect.any(Number),
        },
      });
      expectNoRateLimitHeaders(response);
    });

    it('reports a component registered by a feature module as its own', async () => {
      registry.register('queue', () =>
        Promise.resolve({ status: 'UP', details: { activeCampaigns: 3 } }),
      );
      const response = await t.http.get('/actuator/health').set(OPERATOR).expect(200);
      expect(response.body.components.queue).toEqual({
        status: 'UP',
        details: { activeCampaigns: 3 },
      });
    });

    it('answers 503 DOWN when a component is down, and keeps the other components', async () => {
      registry.register('queue', () =>
        Promise.resolve({ status: 'DOWN', details: { reason: 'worker parado' } }),
      );
      const response = await t.http.get('/actuator/health').set(OPERATOR).expect(503);
      expect(response.body.status).toBe('DOWN');
      expect(response.body.components.queue).toEqual({
        status: 'DOWN',
        details: { reason: 'worker parado' },
      });
      expect(response.body.components.db.status).toBe('UP');
      expect(response.body.components.ping).toEqual({ status: 'UP' });
    });

    it('answers 503 OUT_OF_SERVICE when a component is out of service', async () => {
      registry.register('queue', () => Promise.resolve({ status: 'OUT_OF_SERVICE' }));
      const response = await t.http.get('/actuator/health').expect(503);
      expect(response.body.status).toBe('OUT_OF_SERVICE');
      expect(response.body.components.queue).toEqual({ status: 'OUT_OF_SERVICE' });
    });

    it('reports a probe that throws, even something that is not an Error, as DOWN with 503', async () => {
      registry.register('queue', () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error
        throw { code: 'QUEUE_LOST' };
      });
      const thrown = await t.http.get('/actuator/health').set(OPERATOR).expect(503);
      expect(thrown.body.status).toBe('DOWN');
      expect(thrown.body.components.queue.status).toBe('DOWN');
      expect(typeof thrown.body.components.queue.details.error).toBe('string');

      registry.register('queue', () => Promise.reject(new Error('fila indisponível')));
      const rejected = await t.http.get('/actuator/health').set(OPERATOR).expect(503);
      expect(rejected.body.components.queue).toEqual({
        status: 'DOWN',
        details: { error: 'fila indisponível' },
      });
    });

    it('is back to 200 UP once the component recovers', async () => {
      registry.register('queue', () => Promise.resolve({ status: 'DOWN' }));
      await t.http.get('/actuator/health').expect(503);
      registry.register('queue', UP_QUEUE);
      const response = await t.http.get('/actuator/health').expect(200);
      expect(response.body.status).toBe('UP');
    });

    it('liveness and readiness answer 200 UP; readiness does not depend on the queue', async () => {
      for (const path of ['/actuator/health/liveness', '/actuator/health/readiness']) {
        const response = await t.http.get(path).expect(200);
        expect(response.body).toEqual({ status: 'UP' });
        expectNoRateLimitHeaders(response);
      }
      registry.register('queue', () => Promise.resolve({ status: 'DOWN' }));
      await t.http.get('/actuator/health/readiness').expect(200);
      await t.http.get('/actuator/health/liveness').expect(200);
    });

    it('needs no credential, ignores a bad token, and is never rate limited (anonymous limit here is 1)', async () => {
      for (let i = 0; i < 5; i += 1) {
        await t.http.get('/actuator/health').expect(200);
        await t.http.get('/actuator/info').set('X-Access-Token', 'not-a-token').expect(200);
      }
    });

    it('shows anyone else the statuses only, like Spring’s show-details: when-authorized', async () => {
      registry.register('queue', () =>
        Promise.resolve({ status: 'DOWN', details: { pending: 7 } }),
      );
      for (const headers of [
        {},
        { Authorization: `Bearer ${METRICS_TOKEN}x` },
        { 'X-Access-Token': METRICS_TOKEN },
      ]) {
        const response = await t.http.get('/actuator/health').set(headers).expect(503);
        expect(response.body).toEqual({
          status: 'DOWN',
          components: {
            db: { status: 'UP' },
            diskSpace: { status: 'UP' },
            ping: { status: 'UP' },
            queue: { status: 'DOWN' },
            memory: { status: 'UP' },
            cpu: { status: 'UP' },
          },
        });
        expect(response.text).not.toContain(t.config.dataDir);
      }
      const operator = await t.http.get('/actuator/health').set(OPERATOR).expect(503);
      expect(operator.body.components.queue).toEqual({ status: 'DOWN', details: { pending: 7 } });
      expect(operator.body.components.diskSpace.details.path).toBe(t.config.dataDir);
    });
  });

  describe('GET /actuator/health without METRICS_TOKEN', () => {
    const { t: open } = useE2eFixture();
    beforeAll(() => {
      open.app.get(HealthRegistry).register('queue', UP_QUEUE);
    });

    it('shows no caller the details, whatever it presents: no one holds the token', async () => {
      for (const headers of [{}, OPERATOR]) {
        const response = await open.http.get('/actuator/health').set(headers).expect(200);
        const components = Object.values(response.body.components as Record<string, object>);
        expect(components).toHaveLength(6);
        for (const component of components) {
          expect(component).toEqual({ status: 'UP' });
        }
      }
    });
  });

  describe('OpenAPI', () => {
    const { t: docs } = useE2eFixture();

    it('GET /api/docs-json is an OpenAPI 3 document listing the auth, settings and admin paths', async () => {
      const response = await docs.http.get('/api/docs-json').expect(200);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      const doc = response.body as {
        openapi: string;
        info: { title: string; version: string };
        paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
        components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
      };
      expect(doc.openapi).toMatch(/^3\./);
      expect(doc.info.version).toBe(PACKAGE.version);
      expect(doc.info.title.length).toBeGreaterThan(0);
      expect(Object.keys(doc.paths['/api/auth/login'])).toContain('post');
      expect(Object.keys(doc.paths['/api/auth/register'])).toContain('post');
      expect(Object.keys(doc.paths['/api/auth/me'])).toContain('get');
      expect(Object.keys(doc.paths['/api/admin/companies'])).toContain('get');
      expect(Object.keys(doc.paths['/api/admin/companies/{companyId}']).sort()).toEqual(
        expect.arrayContaining(['get', 'patch']),
      );
      expect(Object.keys(doc.paths['/api/admin/companies/{companyId}/subscription'])).toContain(
        'put',
      );
      expect(Object.keys(doc.paths['/api/companies/{companyId}/settings'])).toEqual(
        expect.arrayContaining(['get', 'patch']),
      );
      expect(Object.keys(doc.paths['/actuator/info'])).toContain('get');
      expect(doc.paths['/api/auth/login'].post.responses).toHaveProperty('200');
      expect(doc.paths['/api/auth/login'].post.responses).toHaveProperty('400');
      expect(doc.components.securitySchemes.accessToken).toMatchObject({
        type: 'apiKey',
        in: 'header',
        name: 'X-Access-Token',
      });
      expect(doc.components.securitySchemes.admin).toMatchObject({
        type: 'apiKey',
        in: 'header',
        name: 'ACCESS_TOKEN',
      });
    });

    it('GET /api/docs-json describes message variants on the texts, and sentText as nullable', async () => {
      const doc = (await docs.http.get('/api/docs-json').expect(200)).body as {
        components: {
          schemas: Record<string, { properties: Record<string, Record<string, unknown>> }>;
        };
      };
      const schemas = doc.components.schemas;
      for (const [schema, field] of [
        ['CreateCampaignDto', 'message'],
        ['CreateCampaignDto', 'caption'],
        ['PollDataDto', 'name'],
        ['MessageConfigDto', 'message'],
        ['MessageConfigDto', 'caption'],
      ]) {
        expect(schemas[schema].properties[field].description).toContain('{Olá|Oi|Bom dia}');
      }
      expect(schemas.CampaignContactResponse.properties.sentText).toMatchObject({
        type: 'string',
        nullable: true,
      });
    });

    it('GET /api/docs serves the browsable HTML page, with the rate-limit headers every response carries', async () => {
      const response = await docs.http.get('/api/docs').expect(200);
      expect(response.headers['content-type']).toMatch(/text\/html/);
      expect(response.text).toMatch(/<html/i);
      expect(response.text).toMatch(/swagger/i);
      expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    });
  });
});
