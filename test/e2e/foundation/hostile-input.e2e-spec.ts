import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { campaignBody, connectedInstance } from '../../support/campaigns';
import { closeDb, countRows } from '../../support/db';
import { expectErrorBody } from '../../support/error-body';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';
import { startTestApp, TestApp, TestCompany } from '../../support/test-app';
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

describe('hostile input', () => {
  let t: TestApp;
  const fake = new FakeEvolutionApi();

  beforeAll(async () => {
    await fake.start();
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
    await closeDb();
  });

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

  describe('bodies of callers without credentials', () => {
    it('answers 401 to an unauthenticated 20 MB body before the client has finished sending it', async () => {
      const url = new URL(`${t.baseUrl}/api/campaigns`);
      const total = 20 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const outcome = await new Promise<{ status: number; sentWhenAnswered: number; body: string }>(
        (resolve, reject) => {
          let sent = 0;
          const timers: { writer?: NodeJS.Timeout } = {};
          const req = httpRequest(
            {
              host: url.hostname,
              port: url.port,
              path: url.pathname,
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'Content-Length': total },
            },
            (res) => {
              const sentWhenAnswered = sent;
              clearInterval(timers.writer);
              let body = '';
              res.on('data', (data: Buffer) => (body += data.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, sentWhenAnswered, body }));
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
        },
      );
      expect(outcome.status).toBe(401);
      expect(outcome.sentWhenAnswered).toBeLessThan(total / 4);
      expect(JSON.parse(outcome.body)).toMatchObject({ status: 401, path: '/api/campaigns' });
    });

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
