import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { phones, waitForCampaign } from '../../support/campaigns';
import type { Pool } from 'pg';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';
import {
  makeCloudNumber,
  messagesChange,
  sendWebhook,
  status,
  verificationRequest,
  webhookBody,
} from '../../support/fake-graph-api/webhooks';
import { EVENTS_SECRET_HEADER, eventsSecretOf, trackedConfig } from '../../support/gateway-events';
import { samplesOf, total } from '../../support/prometheus';
import { startAppOn, TestApp, TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

const GLOBAL_KEY = 'evolution-global-key-0123456789';
const REFUSED_METRIC = 'campaign_service_gateway_events_refused_total';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * POSTs headers announcing `declared` bytes of body, sends only the first 16 KB of it and
 * waits for the answer: one that comes proves the service answered without reading the body.
 */
function postUnfinished(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
  declared: number,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': declared, ...headers },
    });
    outgoing.on('error', reject);
    // A service that waits for the rest of the body never answers.
    outgoing.setTimeout(5_000, () =>
      outgoing.destroy(new Error(`no answer to ${path} while its body was unfinished`)),
    );
    outgoing.on('response', (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => {
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body });
        outgoing.destroy();
      });
    });
    outgoing.write(`{"event":"messages.update","data":"${'x'.repeat(16 * 1024)}`);
  });
}

function update(instance: string, data: Record<string, unknown>, extra = {}) {
  return { event: 'messages.update', instance, data, apikey: null, ...extra };
}

async function eventsStored(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM gateway_events_id_seq`,
  );
  return Number(rows[0].n);
}

async function scrapeRefused(t: TestApp, reason: string): Promise<number> {
  const response = await t.http.get('/actuator/prometheus').expect(200);
  return total(samplesOf(response.text), REFUSED_METRIC, { reason });
}

/**
 * What reaches /api/gateway-events is checked before it is stored: the secret before the body
 * is read, every field the service reads, and the instance and apikey as Evolution API really
 * sends them; one company's events never cost another's.
 */
describe('gateway events at intake', () => {
  // What it stores is counted by the events' sequence, which any insert moves, even one
  // rolled back or already processed and deleted: a database of its own.
  const {
    t,
    fake,
    pool: db,
  } = useE2eFixture({
    database: 'gateway_intake',
    publicBaseUrl: true,
    fake: new FakeEvolutionApi({ globalApiKey: GLOBAL_KEY }),
  });

  /** As a configuration that tracked before tokens were learned: no instance token known. */
  const forgetToken = (id: number) =>
    db.query(`UPDATE gateway_configs SET instance_token_encrypted = NULL WHERE id = $1`, [id]);
  /** How often the service asked the gateway for the instance's token. */
  const tokenLookups = (instance: string) =>
    fake.requests.filter(
      (r) => r.path === '/instance/fetchInstances' && r.query.instanceName === instance,
    ).length;

  it('refuses B’s event dated out of range with 400, and applies A’s receipt and opt-out within seconds', async () => {
    const a = await TestCompany.register(t.http);
    const b = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const configB = await trackedConfig(b, fake);
    const [person] = phones(1, 9500);
    const created = await a
      .post('/api/campaigns', {
        name: 'Recibos',
        gatewayConfigId: configA.id,
        message: 'Olá {PrimeiroNome}',
        intervalMinSeconds: 0,
        intervalMaxSeconds: 0,
        contacts: [person],
      })
      .expect(200);
    await waitForCampaign(a, created.body.id, (x) => x.status === 'COMPLETED');

    const pathB = `/api/gateway-events/${configB.id}`;
    const poisoned = await t.http
      .post(pathB)
      .set(EVENTS_SECRET_HEADER, eventsSecretOf(fake, configB.instance))
      .send(
        update(
          configB.instance,
          { keyId: 'x', fromMe: true, status: 'READ' },
          { date_time: '-010000-01-01T00:00:00Z' },
        ),
      );
    expect(expectErrorBody(poisoned, 400, pathB)).toMatch(/^\{date_time=.*2009/);

    const { rows } = await db.query(
      `SELECT gateway_message_id FROM campaign_contacts WHERE campaign_id = $1`,
      [created.body.id],
    );
    expect(
      await fake.emit(configA.instance, 'messages.update', {
        keyId: rows[0].gateway_message_id,
        remoteJid: `${person.phoneNumber}@s.whatsapp.net`,
        fromMe: true,
        status: 'READ',
      }),
    ).toBe(200);
    expect(
      await fake.emit(configA.instance, 'messages.upsert', {
        key: { remoteJid: `${person.phoneNumber}@s.whatsapp.net`, fromMe: false, id: 'IN1' },
        message: { conversation: 'SAIR' },
        messageTimestamp: Math.floor(Date.now() / 1000),
      }),
    ).toBe(200);
    await until(
      async () => (await a.get(`/api/campaigns/${created.body.id}`)).body,
      (x) => x.readContacts === 1,
      5_000,
    );
    await until(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM blocked_contacts WHERE company_id = $1 AND phone_number = $2 AND is_active`,
            [a.id, person.phoneNumber],
          )
        ).rowCount,
      (n) => n === 1,
      5_000,
    );
  });

  it('answers 400 naming each field it cannot apply, storing nothing and counting it', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const path = `/api/gateway-events/${config.id}`;
    const secret = eventsSecretOf(fake, config.instance);
    const upsert = (data: Record<string, unknown>) => ({
      event: 'messages.upsert',
      instance: config.instance,
      data,
    });
    const connection = (data: Record<string, unknown>) => ({
      event: 'connection.update',
      instance: config.instance,
      data,
    });
    const invalidBefore = await scrapeRefused(t, 'invalid');
    const storedBefore = await eventsStored(db);
    const cases: Array<[unknown, string]> = [
      ['not an object', 'event'],
      [{ instance: config.instance, data: {} }, 'event'],
      [update(config.instance, { keyId: 'K' }, { instance: 7 }), 'instance'],
      [update(config.instance, { keyId: 'K' }, { apikey: { key: 'x' } }), 'apikey'],
      [update(config.instance, { keyId: 'K' }, { date_time: '2008-12-31T23:59:59Z' }), 'date_time'],
      [update(config.instance, { keyId: 'K' }, { date_time: '2026-02-30T10:00:00Z' }), 'date_time'],
      [update(config.instance, { keyId: 'K' }, { date_time: 'ontem' }), 'date_time'],
      [update(config.instance, { keyId: 'K' }, { data: [1] }), 'data'],
      [update(config.instance, { keyId: 12345 }), 'data.keyId'],
      [update(config.instance, { keyId: 'K'.repeat(129) }), 'data.keyId'],
      [update(config.instance, { keyId: 'K', status: 4 }), 'data.status'],
      [update(config.instance, { keyId: 'K', remoteJid: ['x'] }), 'data.remoteJid'],
      [update(config.instance, { keyId: 'K', fromMe: 'yes' }), 'data.fromMe'],
      [upsert({ key: 'x' }), 'data.key'],
      [upsert({ key: { remoteJid: 5511, fromMe: false } }), 'data.key.remoteJid'],
      [upsert({ key: { fromMe: 'false' } }), 'data.key.fromMe'],
      [upsert({ message: { conversation: 'x'.repeat(65_537) } }), 'data.message.conversation'],
      [
        upsert({ message: { extendedTextMessage: { text: false } } }),
        'data.message.extendedTextMessage.text',
      ],
      [connection({ state: 'c'.repeat(21) }), 'data.state'],
      [connection({ state: 'close', statusReason: 'x' }), 'data.statusReason'],
    ];
    for (const [body, field] of cases) {
      const response = await t.http
        .post(path)
        .set(EVENTS_SECRET_HEADER, secret)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body));
      expect(expectErrorBody(response, 400, path)).toContain(`${field}=`);
    }
    expect(await eventsStored(db)).toBe(storedBefore);
    expect(await scrapeRefused(t, 'invalid')).toBe(invalidBefore + cases.length);
  });

  it('answers 401 to a deleted configuration’s events at once, while another company’s are all accepted', async () => {
    const a = await TestCompany.register(t.http);
    const b = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const configB = await trackedConfig(b, fake);
    const secretB = eventsSecretOf(fake, configB.instance);
    const postB = () =>
      t.http
        .post(`/api/gateway-events/${configB.id}`)
        .set(EVENTS_SECRET_HEADER, secretB)
        .send(update(configB.instance, { keyId: 'B', fromMe: true, status: 'READ' }));
    let streaming = true;
    const statusesA: Array<number | null> = [];
    const streamA = (async () => {
      while (streaming) {
        const sent = await Promise.all(
          Array.from({ length: 10 }, (_v, i) =>
            fake.emit(configA.instance, 'messages.update', {
              keyId: `A${statusesA.length + i}`,
              fromMe: true,
              status: 'DELIVERY_ACK',
            }),
          ),
        );
        statusesA.push(...sent);
      }
    })();

    for (let i = 0; i < 5; i += 1) {
      expect((await postB()).status).toBe(200);
    }
    await b.delete(`/api/gateway-configs/${configB.id}`).expect(204);
    const afterDelete = await Promise.all(Array.from({ length: 20 }, () => postB()));
    afterDelete.forEach((response) =>
      expectErrorBody(response, 401, `/api/gateway-events/${configB.id}`),
    );
    streaming = false;
    await streamA;

    expect(statusesA.length).toBeGreaterThan(0);
    expect(statusesA.filter((status) => status !== 200)).toEqual([]);
  });

  it('answers 401, never 500, to events of a configuration deleted or untracked behind the cache’s back', async () => {
    const a = await TestCompany.register(t.http);
    const b = await TestCompany.register(t.http);
    const configA = await trackedConfig(a, fake);
    const configB = await trackedConfig(b, fake);
    const configC = await trackedConfig(b, fake);
    const post = (config: { id: number; instance: string }) =>
      t.http
        .post(`/api/gateway-events/${config.id}`)
        .set(EVENTS_SECRET_HEADER, eventsSecretOf(fake, config.instance))
        .send(update(config.instance, { keyId: 'K', fromMe: true, status: 'READ' }));
    // Both secrets cached; then the rows change without a notification (one lost).
    expect((await post(configB)).status).toBe(200);
    expect((await post(configC)).status).toBe(200);
    await db.query(`DELETE FROM gateway_configs WHERE id = $1`, [configB.id]);
    await db.query(`UPDATE gateway_configs SET track_delivery = false WHERE id = $1`, [configC.id]);
    const storedBefore = await eventsStored(db);

    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => post(configB)),
      ...Array.from({ length: 10 }, () => post(configC)),
      ...Array.from({ length: 10 }, () => post(configA)),
    ]);
    answers
      .slice(0, 10)
      .forEach((r) => expectErrorBody(r, 401, `/api/gateway-events/${configB.id}`));
    answers
      .slice(10, 20)
      .forEach((r) => expectErrorBody(r, 401, `/api/gateway-events/${configC.id}`));
    expect(answers.slice(20).map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(await eventsStored(db)).toBe(storedBefore + 10);
  });

  it('stores and applies events carrying the instance’s own token on a configuration holding the global key', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake, { apiKey: GLOBAL_KEY });
    const token = config.apiKey;
    expect(fake.requests.some((r) => r.path === '/instance/fetchInstances')).toBe(true);
    const { rows } = await db.query(
      `SELECT instance_token_encrypted FROM gateway_configs WHERE id = $1`,
      [config.id],
    );
    expect(rows[0].instance_token_encrypted).toEqual(expect.any(String));
    expect(rows[0].instance_token_encrypted).not.toContain(token);

    const state = { instance: config.instance, state: 'close', statusReason: 428 };
    expect(await fake.emit(config.instance, 'connection.update', state, { apikey: token })).toBe(
      200,
    );
    await until(
      async () => (await company.get(`/api/gateway-configs/${config.id}`)).body.instanceState,
      (value) => value === 'close',
      5_000,
    );
    expect(
      await fake.emit(
        config.instance,
        'connection.update',
        { ...state, state: 'open' },
        { apikey: GLOBAL_KEY },
      ),
    ).toBe(200);
    await until(
      async () => (await company.get(`/api/gateway-configs/${config.id}`)).body.instanceState,
      (value) => value === 'open',
      5_000,
    );
  });

  it('learns the instance’s token from its first event when tracking started before tokens were learned, asking the gateway at most once', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake, { apiKey: GLOBAL_KEY });
    // As the migration leaves a configuration that tracked before: no token known.
    await forgetToken(config.id);
    const lookups = () => tokenLookups(config.instance);
    const registered = lookups();
    const data = { keyId: 'K', fromMe: true, status: 'READ' };

    expect(
      await fake.emit(config.instance, 'messages.update', data, { apikey: config.apiKey }),
    ).toBe(200);
    expect(lookups()).toBe(registered + 1);
    const { rows } = await db.query(
      `SELECT instance_token_encrypted FROM gateway_configs WHERE id = $1`,
      [config.id],
    );
    expect(rows[0].instance_token_encrypted).toEqual(expect.any(String));
    expect(
      await fake.emit(config.instance, 'messages.update', data, { apikey: config.apiKey }),
    ).toBe(200);
    expect(await fake.emit(config.instance, 'messages.update', data, { apikey: 'forged' })).toBe(
      401,
    );
    expect(
      await fake.emit(config.instance, 'messages.update', data, { apikey: 'forged-again' }),
    ).toBe(401);
    expect(lookups()).toBe(registered + 1);
  });

  it('lets a burst of events with a not-yet-known token wait for one lookup of it', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake, { apiKey: GLOBAL_KEY });
    await forgetToken(config.id);
    const lookups = () => tokenLookups(config.instance);
    const before = lookups();
    fake.setResponseDelay(300);
    try {
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_v, i) =>
          fake.emit(
            config.instance,
            'messages.update',
            { keyId: `K${i}`, status: 'READ' },
            { apikey: config.apiKey },
          ),
        ),
      );
      expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));
    } finally {
      fake.setResponseDelay(0);
    }
    expect(lookups()).toBe(before + 1);
  });

  it('asks for the token again seconds, not minutes, after a lookup that learned nothing', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake, { apiKey: GLOBAL_KEY });
    await forgetToken(config.id);
    const emit = (apikey: string) =>
      fake.emit(config.instance, 'messages.update', { keyId: 'K', status: 'READ' }, { apikey });
    expect(await emit('forged')).toBe(401);
    expect(await emit(config.apiKey)).toBe(401);
    // Evolution does not retry a 401: a token refused for minutes loses every event meanwhile.
    await until(
      () => emit(config.apiKey),
      (status) => status === 200,
      15_000,
    );
  });

  it('never brings a stopped tracking back when the token lookup it raced answers late', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake, { apiKey: GLOBAL_KEY });
    await forgetToken(config.id);
    const since = new Date();
    fake.setResponseDelay(1_500);
    try {
      // The event's token is unknown: the service asks the gateway, which answers late.
      const answered = fake.emit(
        config.instance,
        'messages.update',
        { keyId: 'K', status: 'READ' },
        { apikey: config.apiKey },
      );
      await until(
        () =>
          Promise.resolve(
            fake.requests.some((r) => r.path === '/instance/fetchInstances' && r.at >= since),
          ),
        (asked) => asked,
      );
      // Meanwhile tracking stops (committed while the lookup waits for its answer).
      await db.query(
        `UPDATE gateway_configs SET track_delivery = false, events_secret_hash = NULL WHERE id = $1`,
        [config.id],
      );
      await answered;
    } finally {
      fake.setResponseDelay(0);
    }
    const { rows } = await db.query(
      `SELECT track_delivery, events_secret_hash, instance_token_encrypted FROM gateway_configs WHERE id = $1`,
      [config.id],
    );
    expect(rows[0]).toEqual({
      track_delivery: false,
      events_secret_hash: null,
      instance_token_encrypted: null,
    });
  });

  it('accepts the events sent right after tracking is turned on, and refuses the old secret once it is registered again', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake, { trackDelivery: false });
    const path = `/api/gateway-events/${config.id}`;
    const event = update(config.instance, { keyId: 'K', fromMe: true, status: 'READ' });
    // The intake has now seen (and may keep) a configuration that does not track.
    expectErrorBody(await t.http.post(path).set(EVENTS_SECRET_HEADER, 'x').send(event), 401);

    // The gateway may send events as soon as it stored the webhook, before it answers.
    fake.setResponseDelay(400);
    const turningOn = company
      .put(`/api/gateway-configs/${config.id}`, { trackDelivery: true })
      .then((response) => response.status);
    await until(
      () => Promise.resolve(fake.webhookOf(config.instance)?.enabled),
      (enabled) => enabled === true,
    );
    const beforeAnswer = await fake.emit(config.instance, 'messages.update', {
      keyId: 'K',
      status: 'READ',
    });
    fake.setResponseDelay(0);
    expect([beforeAnswer, await turningOn]).toEqual([200, 200]);
    const first = eventsSecretOf(fake, config.instance);
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_v, i) =>
        fake.emit(config.instance, 'messages.update', { keyId: `K${i}`, status: 'READ' }),
      ),
    );
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));

    await company.put(`/api/gateway-configs/${config.id}`, { trackDelivery: true }).expect(200);
    expect(eventsSecretOf(fake, config.instance)).not.toBe(first);
    expectErrorBody(await t.http.post(path).set(EVENTS_SECRET_HEADER, first).send(event), 401);
    expect(
      await fake.emit(config.instance, 'messages.update', { keyId: 'K', status: 'READ' }),
    ).toBe(200);

    const last = eventsSecretOf(fake, config.instance);
    await company.put(`/api/gateway-configs/${config.id}`, { trackDelivery: false }).expect(200);
    expectErrorBody(await t.http.post(path).set(EVENTS_SECRET_HEADER, last).send(event), 401);
  });

  it('refuses an apikey that is neither the key nor the instance’s token, counts it and shows it on the configuration', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const shown = async () => (await company.get(`/api/gateway-configs/${config.id}`)).body;
    expect(await shown()).toMatchObject({ eventsRefusedAt: null, eventsRefusedReason: null });
    const before = await scrapeRefused(t, 'apikey');
    const storedBefore = await eventsStored(db);

    const data = { keyId: 'K', fromMe: true, status: 'READ' };
    expect(
      await fake.emit(config.instance, 'messages.update', data, { apikey: 'someone-elses-key' }),
    ).toBe(401);

    expect(await scrapeRefused(t, 'apikey')).toBe(before + 1);
    const refused = await shown();
    expect(refused.eventsRefusedReason).toBe('APIKEY_MISMATCH');
    expect(Date.now() - new Date(refused.eventsRefusedAt).getTime()).toBeLessThan(60_000);
    expect(await eventsStored(db)).toBe(storedBefore);

    await company.put(`/api/gateway-configs/${config.id}`, { trackDelivery: true }).expect(200);
    expect(await shown()).toMatchObject({ eventsRefusedAt: null, eventsRefusedReason: null });
  });

  it('drops every cached secret once its lost notification connection is back', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const path = `/api/gateway-events/${config.id}`;
    const event = update(config.instance, { keyId: 'K', fromMe: true, status: 'READ' });
    const post = (secret: string) =>
      t.http.post(path).set(EVENTS_SECRET_HEADER, secret).send(event);
    const old = eventsSecretOf(fake, config.instance);
    expect((await post(old)).status).toBe(200);
    const listeners = () =>
      db.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
          WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`,
      );
    const lost = (await listeners()).rows.map((row) => row.pid);
    expect(lost).toHaveLength(1);

    // A secret replaced while nobody listens: its notification is lost with the connection.
    await db.query(`SELECT pg_terminate_backend($1)`, [lost[0]]);
    await db.query(`UPDATE gateway_configs SET events_secret_hash = $2 WHERE id = $1`, [
      config.id,
      createHash('sha256').update('replaced-secret').digest('hex'),
    ]);
    await until(
      async () => (await listeners()).rows.map((row) => row.pid),
      (pids) => pids.length === 1 && pids[0] !== lost[0],
    );
    // Well inside the cache's 30 s: only the reconnection explains it.
    await until(
      async () => [(await post(old)).status, (await post('replaced-secret')).status],
      ([before, after]) => before === 401 && after === 200,
      3_000,
    );
  });

  it('drops a configuration’s secret on every instance of the service at once', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    // Another instance of the service: the same database and data directory (its keys).
    const other = await startAppOn(t.databaseUrl, {
      PUBLIC_BASE_URL: t.config.publicBaseUrl,
      DATA_DIR: t.config.dataDir,
    });
    try {
      const path = `/api/gateway-events/${config.id}`;
      const event = update(config.instance, { keyId: 'K', fromMe: true, status: 'READ' });
      const first = eventsSecretOf(fake, config.instance);
      const postOther = (secret: string) =>
        other.http.post(path).set(EVENTS_SECRET_HEADER, secret).send(event);
      expect((await postOther(first)).status).toBe(200);

      await company.put(`/api/gateway-configs/${config.id}`, { trackDelivery: true }).expect(200);
      const second = eventsSecretOf(fake, config.instance);
      // Well inside the cache's lifetime (30 s): only the change's notification explains it.
      await until(
        async () => [(await postOther(first)).status, (await postOther(second)).status],
        ([old, current]) => old === 401 && current === 200,
        3_000,
      );

      await company.delete(`/api/gateway-configs/${config.id}`).expect(204);
      await until(
        async () => (await postOther(second)).status,
        (status) => status === 401,
        3_000,
      );
    } finally {
      await other.close();
    }
  });
});

describe('gateway events from strangers', () => {
  const LIMIT = 9;
  const { t, fake, pool } = useE2eFixture({
    database: 'gateway_strangers',
    publicBaseUrl: true,
    env: { ANONYMOUS_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'loopback' },
  });
  /** Clients behind the (trusted, loopback) proxy, told apart by X-Forwarded-For. */
  const STRANGER = { 'X-Forwarded-For': '203.0.113.7' };
  const NEIGHBOUR = { 'X-Forwarded-For': '203.0.113.8' };

  it('refuses a megabyte without the secret before reading it, 429 past the client address’s budget, and still takes the gateway’s events from it', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const before = await eventsStored(pool);
    const attempts: Array<[string, Record<string, string>]> = [
      [`/api/gateway-events/${config.id}`, {}],
      [`/api/gateway-events/${config.id}`, { [EVENTS_SECRET_HEADER]: 'guessed' }],
      [`/API/GATEWAY-EVENTS/${config.id}`, {}],
      ['/api/gateway-events/999999999', { [EVENTS_SECRET_HEADER]: 'guessed' }],
      ['/api/gateway-events/not-an-id', {}],
      [`/api/gateway-events/${config.id}/more`, {}],
      [`/api/gateway-events/${config.id}`, {}],
    ];
    const answers: RawAnswer[] = [];
    for (let i = 0; answers.at(-1)?.status !== 429 && i < LIMIT + 2; i += 1) {
      const [path, headers] = attempts[i % attempts.length];
      const answer = await postUnfinished(
        t.baseUrl,
        path,
        { ...STRANGER, ...headers },
        1024 * 1024,
      );
      answers.push(answer);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ status: answer.status, path });
    }
    // Until the client's address's budget is spent.
    const limited = answers.pop() as RawAnswer;
    expect(answers.length).toBeGreaterThanOrEqual(attempts.length);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 401));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(JSON.parse(limited.body)).toMatchObject({ status: 429, error: 'Too Many Requests' });
    expect(await eventsStored(pool)).toBe(before);

    const neighbour = await postUnfinished(
      t.baseUrl,
      `/api/gateway-events/${config.id}`,
      NEIGHBOUR,
      1024 * 1024,
    );
    expect(neighbour.status).toBe(401);

    // The same address, with the secret: the gateway's events are never limited.
    const secret = eventsSecretOf(fake, config.instance);
    for (let i = 0; i < 3; i += 1) {
      await t.http
        .post(`/api/gateway-events/${config.id}`)
        .set({ ...STRANGER, [EVENTS_SECRET_HEADER]: secret })
        .send(update(config.instance, { keyId: `K${i}`, status: 'READ' }))
        .expect(200, { received: true });
    }
    expect(await eventsStored(pool)).toBe(before + 3);
  });

  it('counts refused Meta signatures and verifications against the address, 429 past its budget, and still takes a signed post from elsewhere', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const cloud = await makeCloudNumber(t.app, { id: config.id, companyId: company.id }, { pool });
    const body = webhookBody(cloud.businessAccountId, [
      messagesChange(cloud, { statuses: [status({ wamid: 'wamid.X', status: 'read' })] }),
    ]);
    const FORGER = { 'X-Forwarded-For': '203.0.113.10' };
    const before = await eventsStored(pool);
    const statuses: number[] = [];
    for (let i = 0; statuses.at(-1) !== 429 && i < LIMIT + 2; i += 1) {
      const answer =
        i % 3 === 2
          ? await verificationRequest(t.http, cloud.id, {
              'hub.mode': 'subscribe',
              'hub.verify_token': 'adivinhado',
              'hub.challenge': '42',
            }).set(FORGER)
          : await sendWebhook(t.http, cloud.id, body, 'outro-segredo').set(FORGER);
      statuses.push(answer.status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1)).toEqual(
      statuses.slice(0, -1).map((_s, i) => (i % 3 === 2 ? 403 : 401)),
    );
    expect(statuses.length).toBeGreaterThanOrEqual(LIMIT);
    // Spent: even a signed post from that address waits (Meta delivers it again later).
    expect((await sendWebhook(t.http, cloud.id, body, cloud.appSecret).set(FORGER)).status).toBe(
      429,
    );
    expect(await eventsStored(pool)).toBe(before);

    await sendWebhook(t.http, cloud.id, body, cloud.appSecret)
      .set(NEIGHBOUR)
      .expect(200, { received: true });
    expect(await eventsStored(pool)).toBe(before + 1);
  });

  it('answers an address past its budget from memory: guessed ids cost no query, the gateway’s known configurations still pass', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    // Another company's configuration on the same gateway that has had no event yet.
    const idle = await trackedConfig(await TestCompany.register(t.http), fake);
    const SPENT = { 'X-Forwarded-For': '203.0.113.9' };
    const guess = (id: number) =>
      postUnfinished(
        t.baseUrl,
        `/api/gateway-events/${id}`,
        { ...SPENT, [EVENTS_SECRET_HEADER]: 'guessed' },
        1024 * 1024,
      );
    // The configuration is found once (a wrong secret), then the address spends its budget.
    let answer = await guess(config.id);
    for (let i = 0; answer.status !== 429 && i < LIMIT + 1; i += 1) {
      answer = await guess(2_000_000_000 + i);
    }
    expect(answer.status).toBe(429);

    // Any query on gateway_configs would wait for this lock: every answer below is from memory.
    const locker = await pool.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE gateway_configs IN ACCESS EXCLUSIVE MODE');
      for (const id of [1_000_000_001, 1_500_000_002, 2_147_483_000, idle.id + 1]) {
        expect((await guess(id)).status).toBe(429);
      }
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    for (const known of [config, idle]) {
      await t.http
        .post(`/api/gateway-events/${known.id}`)
        .set({ ...SPENT, [EVENTS_SECRET_HEADER]: eventsSecretOf(fake, known.instance) })
        .send(update(known.instance, { keyId: 'K', status: 'READ' }))
        .expect(200, { received: true });
    }
  });
});
