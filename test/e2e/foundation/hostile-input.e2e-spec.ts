import { Logger } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { MAX_BODY_DEPTH } from '../../../src/common/http/text-hygiene';
import { campaignBody, connectedInstance } from '../../support/campaigns';
import { countRows } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { contactsDatabase } from '../../support/user-databases';

const NUL = 'a\u0000b';
const LONE_SURROGATE = 'x\uD800y';

/** A JSON request with the body as text: JSON.stringify keeps a lone surrogate as "\ud800". */
function sendJson(
  company: TestCompany,
  method: 'post' | 'put' | 'patch',
  path: string,
  body: unknown,
): Promise<import('supertest').Response> {
  return company[method](path).set('Content-Type', 'application/json').send(JSON.stringify(body));
}

/** Tells apart an answer given before the body was read from one given after. */
interface SlowPost {
  status: number;
  total: number;
  sentWhenAnswered: number;
  body: string;
}

/** POSTs a JSON body of `total` bytes in 64 KB chunks every 20 ms, noting how much was sent. */
function postSlowly(baseUrl: string, path: string, total: number): Promise<SlowPost> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise<SlowPost>((resolve, reject) => {
    let sent = 0;
    const timers: { writer?: NodeJS.Timeout } = {};
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: new URL(baseUrl).port,
        path,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': total },
      },
      (res) => {
        const sentWhenAnswered = sent;
        clearInterval(timers.writer);
        let body = '';
        res.on('data', (data: Buffer) => (body += data.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, total, sentWhenAnswered, body }),
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      // The server closes the connection after answering; writes after that fail.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') {
        reject(error);
      }
    });
    req.write('{"name":"');
    timers.writer = setInterval(() => {
      if (sent + chunk.length >= total - 16) {
        clearInterval(timers.writer);
        return;
      }
      req.write(chunk);
      sent += chunk.length;
    }, 20);
  });
}

describe('hostile input', () => {
  // A PUBLIC_BASE_URL, so that a gateway configuration can track its events.
  const { t, fake } = useE2eFixture({ publicBaseUrl: true });

  describe('NUL characters and lone surrogates: 400 naming the field, nothing written', () => {
    it.each([
      ['NUL', NUL],
      ['a lone surrogate', LONE_SURROGATE],
    ])(
      'in campaign, contact, import, webhook, automation and gateway-config fields (%s)',
      async (_label, bad) => {
        const company = await TestCompany.register(t.http);
        const gw = connectedInstance(fake);
        const cases: Array<[string, 'post' | 'put' | 'patch', string, unknown, string, string]> = [
          [
            'campaign name',
            'post',
            '/api/campaigns',
            campaignBody(fake, gw, { name: bad }),
            'name',
            'campaigns',
          ],
          [
            'contact name',
            'post',
            '/api/campaigns',
            campaignBody(fake, gw, { contacts: [{ phoneNumber: '11987650001', name: bad }] }),
            'contacts[0].name',
            'campaigns',
          ],
          [
            'imported contact',
            'post',
            `/api/companies/${company.id}/imports/contacts`,
            { contacts: [{ phoneNumber: '11987650001', cidade: bad }] },
            'contacts[0].cidade',
            'user_databases',
          ],
          [
            'webhook url',
            'put',
            `/api/companies/${company.id}/webhook`,
            { url: `https://hooks.example.com/${bad}` },
            'url',
            'webhooks',
          ],
          [
            'automation name',
            'post',
            '/api/automations',
            { name: bad, scheduleType: 'DAILY' },
            'name',
            'automations',
          ],
          [
            'gateway-config name',
            'post',
            '/api/gateway-configs',
            { name: bad, url: fake.url, apiKey: gw.apiKey, instance: gw.instance },
            'name',
            'gateway_configs',
          ],
        ];
        for (const [label, method, path, body, field, table] of cases) {
          const before = await countRows(table, 'company_id = $1', [company.id]);
          const response = await sendJson(company, method, path, body);
          const message = expectErrorBody(response, 400, path);
          expect([label, message]).toEqual([label, expect.stringContaining(`${field}=`)]);
          expect([label, await countRows(table, 'company_id = $1', [company.id])]).toEqual([
            label,
            before,
          ]);
        }
      },
    );

    it('in a record value and a query parameter', async () => {
      const company = await TestCompany.register(t.http);
      const id = await contactsDatabase(t.http, company);
      const before = await countRows('user_database_records', 'database_id = $1', [id]);
      const path = `/api/user-databases/${id}/records`;
      const response = await sendJson(company, 'post', path, {
        values: { nome: LONE_SURROGATE, telefone: '11987650009' },
      });
      expect(expectErrorBody(response, 400, path)).toContain('values.nome=');
      expect(await countRows('user_database_records', 'database_id = $1', [id])).toBe(before);
      const search = await company.get(`${path}?search=${encodeURIComponent(NUL)}`);
      expect(expectErrorBody(search, 400)).toContain('search=');
    });

    it('in a multipart field', async () => {
      const company = await TestCompany.register(t.http);
      const response = await t.http
        .post('/api/user-databases')
        .set(company.auth)
        .field('config', JSON.stringify({ name: 'Base' }).replace('Base', NUL))
        .attach('file', Buffer.from('nome,telefone\nAna,11987650001\n'), {
          filename: 'c.csv',
          contentType: 'text/csv',
        });
      expect(expectErrorBody(response, 400)).toContain('config=');
      expect(await countRows('user_databases', 'company_id = $1', [company.id])).toBe(0);
    });
  });

  describe(`bodies nested deeper than ${MAX_BODY_DEPTH} levels: 400, never a 500`, () => {
    /** 600 KB of `[[[…]]]`: its recursive walk overflowed the stack and answered 500. */
    const DEEP = `${'['.repeat(300_000)}${']'.repeat(300_000)}`;
    const TOO_DEEP = /^\{body=tem mais de 64 níveis/;
    let errorsLogged: jest.SpyInstance;

    beforeEach(() => {
      errorsLogged = jest.spyOn(Logger.prototype, 'error');
    });
    afterEach(() => {
      // A 500 logs its trace through Nest's Logger; a refused body logs nothing.
      expect(errorsLogged).not.toHaveBeenCalled();
      errorsLogged.mockRestore();
    });

    function postRaw(path: string, body: string, headers: Record<string, string> = {}) {
      return t.http
        .post(path)
        .set({ 'Content-Type': 'application/json', ...headers })
        .send(body);
    }

    it('on the login, from anyone', async () => {
      const response = await postRaw('/api/auth/login', DEEP);
      expect(expectErrorBody(response, 400, '/api/auth/login')).toMatch(TOO_DEEP);
      const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
      const chain = await postRaw('/api/auth/login', objects);
      expect(expectErrorBody(chain, 400, '/api/auth/login')).toMatch(TOO_DEEP);
    });

    it('on the gateway’s events, with their secret, storing nothing', async () => {
      const company = await TestCompany.register(t.http);
      const gw = connectedInstance(fake);
      const config = await company
        .post('/api/gateway-configs', {
          name: 'Eventos',
          url: fake.url,
          apiKey: gw.apiKey,
          instance: gw.instance,
          trackDelivery: true,
        })
        .expect(201);
      const secret = fake.webhookOf(gw.instance)?.headers['x-campaign-service-secret'] as string;
      expect(secret).toBeTruthy();
      const path = `/api/gateway-events/${config.body.id}`;
      const before = await countRows('gateway_events');
      const event = `{"event":"messages.update","instance":"${gw.instance}","data":${DEEP}}`;
      const response = await postRaw(path, event, { 'x-campaign-service-secret': secret });
      expect(expectErrorBody(response, 400, path)).toMatch(TOO_DEEP);
      expect(await countRows('gateway_events')).toBe(before);
    });

    it('on a company’s route, with its token, creating nothing', async () => {
      const company = await TestCompany.register(t.http);
      const response = await postRaw('/api/campaigns', DEEP, company.auth);
      expect(expectErrorBody(response, 400, '/api/campaigns')).toMatch(TOO_DEEP);
      const inField = JSON.stringify(
        campaignBody(fake, connectedInstance(fake), { contacts: [{ phoneNumber: '1' }] }),
      ).replace('"1"', `${'['.repeat(70)}"1"${']'.repeat(70)}`);
      const nested = await postRaw('/API/CAMPAIGNS/', inField, company.auth);
      expect(expectErrorBody(nested, 400, '/API/CAMPAIGNS/')).toMatch(TOO_DEEP);
      expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
    });

    it('on an upper-case path, from a caller without credentials sending a few KB', async () => {
      const small = `${'['.repeat(1_000)}${']'.repeat(1_000)}`;
      const response = await postRaw('/API/CAMPAIGNS', small);
      expect(expectErrorBody(response, 400, '/API/CAMPAIGNS')).toMatch(TOO_DEEP);
    });

    it('in the JSON part of a multipart form, naming the part', async () => {
      const company = await TestCompany.register(t.http);
      const response = await t.http
        .post('/api/user-databases')
        .set(company.auth)
        .field('config', `{"name":"Base","columnMappings":${DEEP}}`)
        .attach('file', Buffer.from('nome,telefone\nAna,11987650001\n'), {
          filename: 'c.csv',
          contentType: 'text/csv',
        });
      expect(expectErrorBody(response, 400)).toMatch(/^\{config=tem mais de 64 níveis/);
      expect(await countRows('user_databases', 'company_id = $1', [company.id])).toBe(0);
    });
  });

  describe('bodies of callers without credentials', () => {
    // Routing ignores case and one trailing slash, and so does the check; `//api/campaigns`
    // reaches no route, and needs credentials all the same.
    it.each(['/api/campaigns', '/API/CAMPAIGNS', '/Api/Campaigns/', '//api/campaigns'])(
      'answers 401 to an unauthenticated 20 MB body to %s before the client has finished sending it',
      async (path) => {
        const outcome = await postSlowly(t.baseUrl, path, 20 * 1024 * 1024);
        expect(outcome.status).toBe(401);
        expect(outcome.sentWhenAnswered).toBeLessThan(outcome.total / 4);
        expect(JSON.parse(outcome.body)).toMatchObject({ status: 401, path });
      },
    );

    it('answers a small unauthenticated body with the usual 401, and reads a token holder’s body', async () => {
      expectErrorBody(
        await t.http.post('/api/campaigns').send({ name: 'x' }),
        401,
        '/api/campaigns',
      );
      const company = await TestCompany.register(t.http);
      const response = await company.post('/api/campaigns', { name: 'x' });
      expect(expectErrorBody(response, 400)).toContain('contacts=');
    });

    it('limits a compressed body by its inflated size', async () => {
      const company = await TestCompany.register(t.http);
      const bomb = gzipSync(Buffer.from(`{"name":"${' '.repeat(3 * 1024 * 1024)}"}`));
      expect(bomb.length).toBeLessThan(64 * 1024);
      const headers = {
        ...company.auth,
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
      };
      const inflated = await fetch(`${t.baseUrl}/api/automations`, {
        method: 'POST',
        headers,
        body: bomb,
      });
      expect(inflated.status).toBe(413);
      expect(await inflated.json()).toMatchObject({ status: 413, path: '/api/automations' });
      const garbage = await fetch(`${t.baseUrl}/api/automations`, {
        method: 'POST',
        headers,
        body: Buffer.from('not gzip at all'),
      });
      expect(garbage.status).toBe(400);
    });
  });
});
