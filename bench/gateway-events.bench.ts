import { Agent, request } from 'node:http';
import { Client } from 'pg';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, trackedBenchConfig } from './support/api';
import { defineBenchmark, type ResultRow } from './support/benchmark';
import { latencyFigures } from './support/mixed-load-client';

/** Targets of the delivery-tracking work. */
export const ACCEPTED_EVENTS_PER_SECOND_TARGET = 10_000;
export const ACCEPT_P99_TARGET_MS = 50;
export const RECEIPT_RATE = 2_000;
export const RECEIPT_COUNTED_TARGET_MS = 5_000;

export const STORM_RATE = 100;

const SEEDED_CONTACTS = Number(process.env.BENCH_EVENTS_CONTACTS ?? 1_000_000);
const RECEIPT_SECONDS = 5;
const SECRET_HEADER = 'x-campaign-service-secret';

/**
 * Inbound gateway events with 1,000,000 campaign contacts in the database:
 * - accepted: autocannon POSTs real-shaped messages.update events (a DELIVERY_ACK of a seeded
 *   message) at /api/gateway-events/{id} with the registered secret, as fast as the service
 *   answers; requests/s and latency percentiles of the 200s (each one stored first);
 * - counted: 2,000 DELIVERY_ACK events a second for 5 s, each for a different seeded message,
 *   sent from this process; the time from sending each second's events to the campaign's
 *   delivered count including them;
 * - storm: the counted run again while another instance posts 100 connection.update a second
 *   (a reconnect loop); the time each of those posts took, and the receipts' lag meanwhile;
 * - replies: 2,000 people's messages a second for 5 s, each from a seeded contact's number; the
 *   time from sending each second's messages to the campaign's replied count including them.
 *
 * `npm run bench -- gateway-events` (BENCH_EVENTS_CONTACTS to seed fewer).
 */
export default defineBenchmark({
  name: 'gateway-events',
  description:
    'gateway events: accepted events/s and p99 with 1M contacts; event → counted receipt',
  async run(context) {
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    const service = await context.startApp({ env: { ROLE: 'all' } });
    const database = await context.database();
    const sql = new Client({ connectionString: database.url });
    await sql.connect();
    context.onCleanup(() => sql.end());

    const company = await registerBenchCompany(service.baseUrl);
    const config = await trackedBenchConfig(service.baseUrl, company, fake, 'bench-events');
    const secret = config.secret;
    context.log(`seeding ${SEEDED_CONTACTS.toLocaleString('en')} sent campaign contacts`);
    const campaignId = await seedSentContacts(sql, company.id, config.id);

    const url = `${service.baseUrl}/api/gateway-events/${config.id}`;
    const event = (n: number | string): string =>
      JSON.stringify({
        event: 'messages.update',
        instance: 'bench-events',
        data: {
          keyId: typeof n === 'number' ? `K${n}` : n,
          remoteJid: '5511900000001@s.whatsapp.net',
          fromMe: true,
          participant: null,
          status: 'DELIVERY_ACK',
          instanceId: 'bench',
          messageId: 'row',
        },
        destination: url,
        date_time: new Date().toISOString(),
        sender: '5511999990000@s.whatsapp.net',
        server_url: fake.url,
        apikey: null,
      });
    context.log('accepted: autocannon against the events route');
    const accepted = await context.measure({
      name: 'messages.update events',
      url,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [SECRET_HEADER]: secret },
      body: event('K1'),
    });
    await waitUntilProcessed(sql);

    context.log(`counted: ${RECEIPT_RATE} receipts/s for ${RECEIPT_SECONDS} s`);
    const lags = await countedLags(sql, url, secret, event, campaignId, 3);
    context.log(`storm: the same, while another instance posts ${STORM_RATE} connection events/s`);
    const storming = await trackedBenchConfig(service.baseUrl, company, fake, 'bench-storm');
    const [storm, lagsInStorm] = await Promise.all([
      connectionStorm(
        `${service.baseUrl}/api/gateway-events/${storming.id}`,
        storming.secret,
        'bench-storm',
        RECEIPT_SECONDS + 1,
      ),
      countedLags(sql, url, secret, event, campaignId, 3 + RECEIPT_SECONDS * RECEIPT_RATE),
    ]);
    context.log(`replies: ${RECEIPT_RATE} people's messages/s for ${RECEIPT_SECONDS} s`);
    const replyLags = await countedLags(
      sql,
      url,
      secret,
      inboundMessage(url, fake.url),
      campaignId,
      3 + 2 * RECEIPT_SECONDS * RECEIPT_RATE,
      'replied_contacts',
    );
    const stormLatency = latencyFigures(storm);
    const rows: ResultRow[] = [
      {
        measure: 'accepted messages.update events',
        perSecond: Math.round(accepted.requestsPerSecond),
        p50Ms: accepted.latencyMs.p50,
        p99Ms: accepted.latencyMs.p99,
        non2xx: accepted.non2xx + accepted.errors,
        serverCpuUs: Math.round(accepted.serverCpuMicrosPerRequest),
      },
      ...lags.map((lag, second) => ({
        measure: `receipts of second ${second + 1} counted after (ms)`,
        perSecond: RECEIPT_RATE,
        countedMs: Math.round(lag),
      })),
      {
        measure: 'storm: connection.update posts answered',
        perSecond: STORM_RATE,
        p50Ms: Math.round(stormLatency.p50),
        p99Ms: Math.round(stormLatency.p99),
      },
      ...lagsInStorm.map((lag, second) => ({
        measure: `storm: receipts of second ${second + 1} counted after (ms)`,
        perSecond: RECEIPT_RATE,
        countedMs: Math.round(lag),
      })),
      ...replyLags.map((lag, second) => ({
        measure: `replies of second ${second + 1} counted after (ms)`,
        perSecond: RECEIPT_RATE,
        countedMs: Math.round(lag),
      })),
    ];
    return {
      rows,
      checks: [
        {
          name: `accepted events/s (target ${ACCEPTED_EVENTS_PER_SECOND_TARGET})`,
          value: accepted.requestsPerSecond - ACCEPTED_EVENTS_PER_SECOND_TARGET,
          atLeast: 0,
        },
        {
          name: `accept p99 ms left under ${ACCEPT_P99_TARGET_MS}`,
          value: ACCEPT_P99_TARGET_MS - accepted.latencyMs.p99,
          atLeast: 0,
        },
        {
          name: `slowest second of receipts counted, ms left under ${RECEIPT_COUNTED_TARGET_MS}`,
          value: RECEIPT_COUNTED_TARGET_MS - Math.max(...lags),
          atLeast: 0,
        },
        {
          name: `slowest second of replies counted, ms left under ${RECEIPT_COUNTED_TARGET_MS}`,
          value: RECEIPT_COUNTED_TARGET_MS - Math.max(...replyLags),
          atLeast: 0,
        },
        {
          name: `storm: connection.update p99 ms left under ${ACCEPT_P99_TARGET_MS}`,
          value: ACCEPT_P99_TARGET_MS - stormLatency.p99,
          atLeast: 0,
        },
        {
          name: `storm: slowest second of receipts counted, ms left under ${RECEIPT_COUNTED_TARGET_MS}`,
          value: RECEIPT_COUNTED_TARGET_MS - Math.max(...lagsInStorm),
          atLeast: 0,
        },
      ],
      notes: [
        `one application instance (ROLE=all) with ${SEEDED_CONTACTS.toLocaleString('en')} SENT campaign contacts, each with a gateway message key id (the receipts' index is the partial one on gateway_message_id)`,
        'accepted: autocannon in a child process, the settings below; every 200 means the event was stored (batched INSERTs) before the answer',
        `counted: ${RECEIPT_RATE} events a second from this process over keep-alive connections, each a different seeded message; lag = the moment the campaign's delivered_contacts includes a second's events − the moment that second's events were all sent`,
        `replies: ${RECEIPT_RATE} messages.upsert a second from the seeded contacts' numbers (as Evolution v2.3.6 posts a person's text), each a different person who got the campaign's message; lag = until the campaign's replied_contacts includes a second's messages (each also records the person's conversation and looks for their PENDING contacts to warm)`,
        `storm: the counted run again (other messages) while a second configuration's instance posts ${STORM_RATE} connection.update ("connecting") a second, as Evolution API does in a reconnect loop; p50/p99 of those posts`,
      ],
      details: { accepted, lags, storm: stormLatency, lagsInStorm, replyLags },
    };
  },
});

async function seedSentContacts(sql: Client, companyId: number, configId: number): Promise<number> {
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO campaigns (company_id, name, status, type, is_test, message_content, gateway_config_id,
            gateway_name, gateway_url, gateway_instance, min_interval, max_interval, total_contacts,
            sent_contacts, failed_contacts, blocked_contacts_removed, progress_step, created_at, updated_at,
            started_at, completed_at)
     VALUES ($1, 'bench receipts', 'COMPLETED', 'TEXT', false, 'Olá', $2, 'bench', 'http://127.0.0.1', 'bench-events',
             0, 0, $3, $3, 0, 0, 10, now(), now(), now(), now())
     RETURNING id`,
    [companyId, configId, SEEDED_CONTACTS],
  );
  const campaignId = rows[0].id;
  await sql.query(
    `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, status, retry_count, sent_at,
            gateway_message_id)
     SELECT $1, $2, (5511900000000 + g)::text, '', 'SENT', 1, now(), 'K' || g
       FROM generate_series(1, $3) AS g`,
    [campaignId, companyId, SEEDED_CONTACTS],
  );
  await sql.query(`ANALYZE campaign_contacts`);
  return campaignId;
}

async function waitUntilProcessed(sql: Client): Promise<void> {
  for (;;) {
    const { rows } = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM gateway_events`,
    );
    if (rows[0].n === 0) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The campaign counters a second's events are counted in. */
type CountedIn = 'delivered_contacts' | 'replied_contacts';

/**
 * Sends RECEIPT_RATE distinct events a second (`event` of the seeded message `n`); per second,
 * how long until all were counted in the campaign's `counter`.
 */
async function countedLags(
  sql: Client,
  url: string,
  secret: string,
  event: (n: number) => string,
  campaignId: number,
  firstKey: number,
  counter: CountedIn = 'delivered_contacts',
): Promise<number[]> {
  const poster = eventPoster(url, secret);
  const delivered = async (): Promise<number> =>
    (
      await sql.query<{ n: number }>(`SELECT ${counter} AS n FROM campaigns WHERE id = $1`, [
        campaignId,
      ])
    ).rows[0].n;
  const start = await delivered();
  const countedAt: number[] = [];
  const sentAt: number[] = [];
  let sending = true;
  const watch = (async (): Promise<void> => {
    while (countedAt.length < RECEIPT_SECONDS) {
      const counted = (await delivered()) - start;
      while (
        countedAt.length < RECEIPT_SECONDS &&
        counted >= (countedAt.length + 1) * RECEIPT_RATE
      ) {
        countedAt.push(Date.now());
      }
      if (!sending && Date.now() - (sentAt[sentAt.length - 1] ?? 0) > 60_000) {
        throw new Error(`events not counted: ${counted} of ${RECEIPT_SECONDS * RECEIPT_RATE}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  let next = firstKey - 1;
  for (let second = 0; second < RECEIPT_SECONDS; second += 1) {
    const began = Date.now();
    const keys = Array.from({ length: RECEIPT_RATE }, () => (next += 1));
    for (let i = 0; i < keys.length; i += 100) {
      await Promise.all(keys.slice(i, i + 100).map((key) => poster.post(event(key))));
    }
    sentAt.push(Date.now());
    const rest = 1000 - (Date.now() - began);
    if (rest > 0) {
      await new Promise((resolve) => setTimeout(resolve, rest));
    }
  }
  sending = false;
  await watch;
  poster.close();
  return countedAt.map((at, second) => Math.max(0, at - sentAt[second]));
}

/** POSTs to the events route with the secret over keep-alive connections; answers the ms taken. */
function eventPoster(
  url: string,
  secret: string,
): { post(body: string): Promise<number>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(url);
  const post = (body: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const began = performance.now();
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            [SECRET_HEADER]: secret,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(performance.now() - began)
              : reject(new Error(`${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** A person's text to the instance, from seeded contact `n`'s number, as v2.3.6 posts it. */
function inboundMessage(url: string, serverUrl: string): (n: number) => string {
  return (n) => {
    const id = `BENCH${String(n).padStart(27, '0')}`;
    return JSON.stringify({
      event: 'messages.upsert',
      instance: 'bench-events',
      data: {
        key: {
          remoteJid: `${5511900000000 + n}@s.whatsapp.net`,
          fromMe: false,
          id,
          addressingMode: 'pn',
        },
        pushName: 'Cliente',
        status: 'DELIVERY_ACK',
        message: { conversation: 'Tenho interesse, pode me ligar?' },
        messageType: 'conversation',
        messageTimestamp: Math.floor(Date.now() / 1000),
        instanceId: 'bench',
        source: 'android',
      },
      destination: url,
      date_time: new Date().toISOString(),
      sender: '5511999990000@s.whatsapp.net',
      server_url: serverUrl,
      apikey: null,
    });
  };
}

/**
 * An instance reconnecting in a loop: STORM_RATE `connection.update` ("connecting") a second
 * for `seconds`, as Evolution API posts them; answers each post's time (ms).
 */
async function connectionStorm(
  url: string,
  secret: string,
  instance: string,
  seconds: number,
): Promise<number[]> {
  const poster = eventPoster(url, secret);
  const started = Date.now();
  const posts: Array<Promise<number>> = [];
  for (let i = 0; i < STORM_RATE * seconds; i += 1) {
    const wait = started + (i * 1000) / STORM_RATE - Date.now();
    if (wait > 0) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const body = JSON.stringify({
      event: 'connection.update',
      instance,
      data: { instance, state: 'connecting', statusReason: 200 },
      destination: url,
      date_time: new Date().toISOString(),
      server_url: 'http://127.0.0.1',
      apikey: null,
    });
    posts.push(poster.post(body));
  }
  const times = await Promise.all(posts);
  poster.close();
  return times;
}
