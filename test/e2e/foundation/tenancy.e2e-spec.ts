import type request from 'supertest';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete'];

async function flagsRow(companyId: number): Promise<Record<string, unknown>> {
  const { rows } = await db().query(
    `SELECT blocked_contacts_enabled, poll_campaigns_enabled, automations_enabled, updated_at FROM companies WHERE id = $1`,
    [companyId],
  );
  return rows[0] as Record<string, unknown>;
}

function expectRateLimitHeaders(response: request.Response): void {
  expect(Number(response.headers['x-ratelimit-limit'])).toBeGreaterThan(0);
  expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(response.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
}

/** A new company's reach-out, reply and price settings: the defaults. */
const REPLY_DEFAULTS = {
  reachOut: {
    lockRefusals: 3,
    lockSample: 20,
    lockCooldownHours: 24,
    warmDays: 28,
    replyWindowHours: 72,
  },
  includeReplyText: false,
  messagePrices: null,
};

describe('tenancy, authentication of every route, unknown routes', () => {
  const {
    t,
    companies: [mine, other],
  } = useE2eFixture({ companies: ['Minha Empresa', 'Outra Empresa'] });

  describe('/api/companies/{companyId}/settings', () => {
    it('answers the own company with its flags', async () => {
      const response = await mine.get(`/api/companies/${mine.id}/settings`).expect(200);
      expect(response.body).toEqual({
        companyId: mine.id,
        blockedContactsEnabled: true,
        pollCampaignsEnabled: true,
        automationsEnabled: true,
        optOutWords: ['SAIR', 'PARAR', 'STOP', 'CANCELAR', 'DESCADASTRAR'],
        optOutConfirmation: null,
        sendingWindow: null,
        autoPause: { failuresInRow: 5, refusedPercent: 30, refusedSample: 50 },
        ...REPLY_DEFAULTS,
      });
    });

    it('refuses another company’s id with 403, for reading and for changing, and changes nothing', async () => {
      const before = await flagsRow(other.id);
      const read = await mine.get(`/api/companies/${other.id}/settings`);
      expect(expectErrorBody(read, 403, `/api/companies/${other.id}/settings`)).toMatch(
        /outra empresa/,
      );
      const write = await mine.patch(`/api/companies/${other.id}/settings`, {
        pollCampaignsEnabled: false,
      });
      expectErrorBody(write, 403);
      expect(await flagsRow(other.id)).toEqual(before);
    });

    it('refuses the id of a company that does not exist with 403 (it is not the token’s)', async () => {
      expectErrorBody(await mine.get('/api/companies/2147483647/settings'), 403);
    });

    it.each(['abc', '1.5', '-1', '1e3', '99999999999'])(
      'refuses the non-numeric company id %s with 400',
      async (id) => {
        expectErrorBody(await mine.get(`/api/companies/${id}/settings`), 400);
        expectErrorBody(
          await mine.patch(`/api/companies/${id}/settings`, { pollCampaignsEnabled: false }),
          400,
        );
      },
    );

    it('changes the flags, and the next /api/auth/me shows them', async () => {
      const company = await TestCompany.register(t.http);
      await company.get('/api/auth/me').expect(200);
      const response = await company
        .patch(`/api/companies/${company.id}/settings`, {
          blockedContactsEnabled: false,
          pollCampaignsEnabled: false,
        })
        .expect(200);
      expect(response.body).toEqual({
        companyId: company.id,
        blockedContactsEnabled: false,
        pollCampaignsEnabled: false,
        automationsEnabled: true,
        optOutWords: ['SAIR', 'PARAR', 'STOP', 'CANCELAR', 'DESCADASTRAR'],
        optOutConfirmation: null,
        sendingWindow: null,
        autoPause: { failuresInRow: 5, refusedPercent: 30, refusedSample: 50 },
        ...REPLY_DEFAULTS,
      });
      expect(await flagsRow(company.id)).toMatchObject({
        blocked_contacts_enabled: false,
        poll_campaigns_enabled: false,
        automations_enabled: true,
      });
      const me = await company.get('/api/auth/me').expect(200);
      expect(me.body).toMatchObject({
        blockedContactsEnabled: false,
        pollCampaignsEnabled: false,
        automationsEnabled: true,
      });

      await company
        .patch(`/api/companies/${company.id}/settings`, { pollCampaignsEnabled: true })
        .expect(200);
      const again = await company.get('/api/auth/me').expect(200);
      expect(again.body).toMatchObject({
        blockedContactsEnabled: false,
        pollCampaignsEnabled: true,
      });
      const other = await company.get(`/api/companies/${company.id}/settings`).expect(200);
      expect(other.body).toMatchObject({
        blockedContactsEnabled: false,
        pollCampaignsEnabled: true,
      });
    });

    it.each<[string, unknown]>([
      ['blockedContactsEnabled', 'false'],
      ['blockedContactsEnabled', null],
      ['blockedContactsEnabled', 0],
      ['pollCampaignsEnabled', 'sim'],
      ['pollCampaignsEnabled', null],
      ['automationsEnabled', false],
      ['isActive', false],
      ['rateLimitPerMinute', 1000],
    ])('refuses %s = %p with 400 naming the field and changes nothing', async (field, value) => {
      const before = await flagsRow(mine.id);
      const response = await mine.patch(`/api/companies/${mine.id}/settings`, { [field]: value });
      expect(expectErrorBody(response, 400)).toMatch(new RegExp(`^\\{${field}=[^=]+\\}$`));
      expect(await flagsRow(mine.id)).toEqual(before);
    });

    it('refuses a body that is not an object with 400 and changes nothing', async () => {
      const before = await flagsRow(mine.id);
      const response = await mine
        .patch(`/api/companies/${mine.id}/settings`)
        .set('Content-Type', 'application/json')
        .send('[{"pollCampaignsEnabled": false}]');
      expectErrorBody(response, 400);
      expect(await flagsRow(mine.id)).toEqual(before);
    });
  });

  describe('every /api route needs a company token', () => {
    const operations = async (): Promise<Array<{ method: Method; path: string }>> => {
      const doc = (await t.http.get('/api/docs-json').expect(200)).body as {
        paths: Record<string, Record<string, unknown>>;
      };
      return Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/api/'))
        .flatMap(([path, item]) =>
          METHODS.filter((m) => m in item).map((method) => ({ method, path })),
        )
        .filter(({ method, path }) => !(method === 'post' && path === '/api/auth/login'));
    };

    it.each<[string, Record<string, string>]>([
      ['no token', {}],
      ['an empty token', { 'X-Access-Token': '' }],
      ['an unknown token', { 'X-Access-Token': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
      ['the token sent as a Bearer header', { Authorization: 'Bearer whatever' }],
    ])(
      'answers every operation of the OpenAPI document except login with 401 for %s',
      async (_label, headers) => {
        const list = await operations();
        expect(list).toEqual(
          expect.arrayContaining([
            { method: 'get', path: '/api/auth/me' },
            { method: 'post', path: '/api/auth/logout' },
            { method: 'post', path: '/api/auth/register' },
            { method: 'get', path: '/api/companies/{companyId}/settings' },
            { method: 'patch', path: '/api/companies/{companyId}/settings' },
            { method: 'get', path: '/api/admin/companies' },
          ]),
        );
        for (const { method, path } of list) {
          const concrete = path.replace(/\{[^}]+\}/g, String(mine.id));
          const response = await t.http[method](concrete).set(headers);
          expect([method, path, response.status]).toEqual([method, path, 401]);
          expectErrorBody(response, 401, concrete);
        }
      },
    );

    it('a revoked token answers 401 everywhere it used to work', async () => {
      const company = await TestCompany.register(t.http);
      await company.post('/api/auth/logout').expect(204);
      expectErrorBody(await company.get('/api/auth/me'), 401);
      expectErrorBody(await company.get(`/api/companies/${company.id}/settings`), 401);
    });
  });

  describe('unknown routes', () => {
    it.each<[Method, string]>([
      ['get', '/api/nada'],
      ['post', '/api/campanhas'],
      ['get', '/nothing/here'],
      ['delete', '/api/auth/login'],
      ['get', '/api/auth/login'],
      ['put', '/api/companies/1/settings'],
      ['get', '/actuatorx'],
    ])('answer %s %s with 404, the error body and the rate-limit headers', async (method, path) => {
      const response = await t.http[method](path);
      expect(expectErrorBody(response, 404, path)).toBe('Recurso não encontrado');
      expectRateLimitHeaders(response);
    });

    it('answer a caller with a token with 404 and the company’s rate-limit headers', async () => {
      const response = await mine.get('/api/nada');
      expectErrorBody(response, 404, '/api/nada');
      expectRateLimitHeaders(response);
      const known = await mine.get('/api/auth/me');
      expect(known.headers['x-ratelimit-limit']).toBe(response.headers['x-ratelimit-limit']);
      expect(Number(known.headers['x-ratelimit-remaining'])).toBe(
        Number(response.headers['x-ratelimit-remaining']) - 1,
      );
    });
  });
});
