import { request as httpRequest } from 'node:http';
import { useE2eFixture } from '../../support/e2e-fixture';
import { EVENTS_SECRET_HEADER, eventsSecretOf, trackedConfig } from '../../support/gateway-events';
import { samplesOf, total } from '../../support/prometheus';
import { TestCompany } from '../../support/test-app';

const HTTP = 'campaign_service_http_request_duration_seconds';
const ROUTE = '/api/gateway-events/:configurationId';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/**
 * POSTs `body` as JSON: `plain` with its Content-Length, as Evolution API posts it (the route's
 * short path); `chunked` without one and `query` with a query string, both of which only the
 * generic path (body-parser, Nest's router and controller) takes.
 */
function post(
  baseUrl: string,
  path: string,
  secret: string,
  body: string | Buffer,
  form: 'plain' | 'chunked' | 'query',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      [EVENTS_SECRET_HEADER]: secret,
    };
    if (form !== 'chunked') {
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const outgoing = httpRequest(`${baseUrl}${path}${form === 'query' ? '?via=query' : ''}`, {
      method: 'POST',
      headers,
    });
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      let text = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (text += chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: JSON.parse(text) as Record<string, unknown>,
        }),
      );
    });
    outgoing.end(body);
  });
}

/** What two answers must share whichever path gave them (the time, and so the ETag, aside). */
function comparable(answer: Answer): unknown {
  const { timestamp: _timestamp, path: _path, ...body } = answer.body;
  return {
    status: answer.status,
    body,
    contentType: answer.headers['content-type'],
    requestId: typeof answer.headers['x-request-id'],
  };
}

/**
 * Evolution API's posts take a short path ahead of Nest's router (GatewayEventsRoute); every
 * other form of the same request goes the generic way. Both must answer alike.
 */
describe('the gateway events route, short and generic paths', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true });

  async function setUp() {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const path = `/api/gateway-events/${config.id}`;
    const secret = eventsSecretOf(fake, config.instance);
    const event = (extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        event: 'messages.update',
        instance: config.instance,
        data: { keyId: 'K', fromMe: true, status: 'READ' },
        apikey: null,
        ...extra,
      });
    const answers = (body: string | Buffer) =>
      Promise.all(
        (['plain', 'chunked', 'query'] as const).map((form) =>
          post(t.baseUrl, path, secret, body, form),
        ),
      );
    // The first event finds the configuration; the short path takes those after it.
    expect((await post(t.baseUrl, path, secret, event(), 'plain')).status).toBe(200);
    return { path, event, answers };
  }

  it('acknowledges an event with the same answer and the same route in the metrics', async () => {
    const { event, answers } = await setUp();
    const count = async () =>
      total(
        samplesOf((await t.http.get('/actuator/prometheus').expect(200)).text),
        `${HTTP}_count`,
        {
          method: 'POST',
          route: ROUTE,
          status_code: '200',
        },
      );
    const before = await count();

    const [plain, ...generic] = await answers(event());

    expect(plain.body).toEqual({ received: true });
    generic.forEach((answer) => {
      expect(comparable(answer)).toEqual(comparable(plain));
      expect(answer.headers.etag).toBe(plain.headers.etag);
    });
    expect(await count()).toBe(before + 3);
  });

  it('answers a malformed body, an unsafe text and a too-deep body with the same 400', async () => {
    const { path, event, answers } = await setUp();
    const deep = `${'['.repeat(70)}1${']'.repeat(70)}`;
    for (const body of [
      '{"event": "messages.update",',
      event({ instance: 'a\u0000b' }),
      event({ data: JSON.parse(`{"keyId": ${deep}}`) as unknown }),
    ]) {
      const [plain, ...generic] = await answers(body);
      expect(plain.status).toBe(400);
      expect(plain.body).toMatchObject({ status: 400, error: 'Bad Request' });
      expect(plain.body.path).toBe(path);
      generic.forEach((answer) => expect(comparable(answer)).toEqual(comparable(plain)));
    }
  });

  it('reads a body that starts with a byte-order mark, as body-parser does', async () => {
    const { event, answers } = await setUp();
    const withMark = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(event())]);
    const statuses = (await answers(withMark)).map((answer) => answer.status);
    expect(statuses).toEqual([200, 200, 200]);
  });
});
