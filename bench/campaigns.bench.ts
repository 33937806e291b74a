import { performance } from 'node:perf_hooks';
import { Client, Pool } from 'pg';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, requestJson } from './support/api';
import {
  defineBenchmark,
  type BenchContext,
  type Check,
  type ResultRow,
} from './support/benchmark';
import { readdirSync, readFileSync } from 'node:fs';

/** Targets of the campaign-sending issue. */
const CREATE_10K_P50_TARGET_MS = 250;
const CREATE_100K_TARGET_MS = 2000;
const BARE_INSERT_RATIO_TARGET = 5;
const DB_MS_PER_MESSAGE_TARGET = 2;
const CONCURRENT_MESSAGES_PER_SECOND_TARGET = 500;

const BLOCKED_NUMBERS = 100_000;
/** Sender pools: 100,000 contacts on 10 numbers within this many times the time on one. */
const POOL_SENDERS = 10;
const POOL_CREATION_RATIO_TARGET = 1.2;
const POOL_CREATION_ROUNDS = 3;
const CREATE_10K_ROUNDS = 7;

const phoneOf = (i: number): string => `55119${String(10_000_000 + i).padStart(8, '0')}`;
/** São Paulo landlines (8 digits starting with 3): valid numbers, apart from phoneOf's mobiles. */
const blockedPhoneOf = (i: number): string => `55113${String(i).padStart(7, '0')}`;

function contacts(count: number, offset: number): Array<{ phoneNumber: string; name: string }> {
  return Array.from({ length: count }, (_v, i) => ({
    phoneNumber: phoneOf(offset + i),
    name: `Contato ${offset + i}`,
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Peak resident memory of this process while `work` runs, sampled every 10 ms. */
async function withPeakRss<T>(
  work: () => Promise<T>,
): Promise<{ result: T; peakRssMb: number; baseRssMb: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, peakRssMb: peak / 1048576, baseRssMb: base / 1048576 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Time spent in PostgreSQL round trips by this process, measured on the `pg` client itself:
 * every query's time from send to result, summed. Used for the engine's cost per message.
 */
function instrumentPg(): { total(): number; reset(): void; restore(): void } {
  const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let totalMs = 0;
  proto.query = function (this: unknown, ...args: unknown[]): unknown {
    const started = performance.now();
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<unknown>).finally(() => {
        totalMs += performance.now() - started;
      });
    }
    return result;
  };
  return {
    total: () => totalMs,
    reset: () => {
      totalMs = 0;
    },
    restore: () => {
      proto.query = original;
    },
  };
}

/**
 * Campaign creation (10,000 contacts, and 100,000 contacts against a block list of 100,000
 * numbers), next to a bare `INSERT … SELECT FROM unnest` of the same rows on the same
 * database; then dispatch throughput with zero intervals to the fake gateway on 127.0.0.1,
 * for one campaign and for 100 at once, and PostgreSQL time per message.
 *
 * `npm run bench -- campaigns`.
 */
export default defineBenchmark({
  name: 'campaigns',
  description:
    'campaign creation (10k, 100k with 100k blocked), dispatch messages/s, DB time per message',
  async run(context) {
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    fake.addInstance('bench', { apiKey: 'bench-key', state: 'open' });
    for (let i = 0; i < POOL_SENDERS; i += 1) {
      fake.addInstance(`bench-pool-${i}`, { apiKey: 'bench-key', state: 'open' });
    }
    const service = await context.startApp({
      env: { ROLE: 'all', CAMPAIGN_CREATIONS_PER_HOUR: '1000000' },
    });
    const database = await context.database();
    const sql = new Pool({ connectionString: database.url, max: 2 });
    context.onCleanup(() => sql.end());
    const company = await registerBenchCompany(service.baseUrl);
    const headers = { 'X-Access-Token': company.token, 'Content-Type': 'application/json' };
    const gateway = { gatewayUrl: fake.url, gatewayApiKey: 'bench-key', gatewayInstance: 'bench' };

    const parts = (process.env.BENCH_CAMPAIGNS_PARTS ?? 'creation,dispatch').split(',');
    const rows: ResultRow[] = [];
    const checks: Check[] = [];
    if (parts.includes('creation')) {
      const creation = await measureCreation(context, sql, company.id, {
        baseUrl: service.baseUrl,
        headers,
        gateway,
      });
      rows.push(...creation.rows);
      checks.push(...creation.checks);
      const pooled = await measurePoolCreation(context, {
        baseUrl: service.baseUrl,
        headers,
        gateway,
        gatewayUrl: fake.url,
      });
      rows.push(...pooled.rows);
      checks.push(...pooled.checks);
    }
    if (parts.includes('dispatch')) {
      const dispatching = await measureDispatch(context, service.baseUrl, headers, gateway, fake);
      rows.push(...dispatching.rows);
      checks.push(...dispatching.checks);
    }
    return {
      rows,
      checks,
      notes: [
        'Creation: POST /api/campaigns over HTTP on 127.0.0.1 with scheduledFor in 2099 (gateway check, normalization, block-list anti-join and the contact insert run; nothing is sent). The application, the client and the fake gateway share this process; PostgreSQL is a separate server.',
        'Bare insert: INSERT INTO campaign_contacts SELECT FROM unnest($phones, $names) of the same number of rows, same database, same run.',
        'Peak RSS: this process (application + client building the 5.4 MB body), sampled every 10 ms during the 100k request.',
        'Dispatch: zero intervals, fake Evolution API on 127.0.0.1 answering at once; messages/s from the first send to the last. DB CPU ms per message: CPU time of the PostgreSQL server processes on this machine from the moment every campaign was created to the last send (utime + stime from /proc), divided by the messages sent in that time. Query latency per message: every pg query of the process timed from send to result, summed, divided by the messages — with many campaigns at once it includes the time queries wait for a connection and a CPU, so it is not a cost.',
        `Pool: ${POOL_SENDERS} saved configurations of the same company (each its own instance of the fake), 100,000 new contacts (nobody has talked with or been sent by any of them: every contact takes the round-robin turn), scheduled in 2099; the same body with one saved configuration (gatewayConfigId) as the single-sender time; ${POOL_CREATION_ROUNDS} rounds each, alternating, medians.`,
        'BENCH_CAMPAIGNS_PARTS=creation or =dispatch runs one part only.',
      ],
    };
  },
});

async function bareInsert(sql: Pool, companyId: number, count: number): Promise<number> {
  const campaign = await sql.query<{ id: number }>(
    `INSERT INTO campaigns (company_id, name, status, type, gateway_config_id, gateway_name, gateway_url, gateway_instance,
                            min_interval, max_interval, created_at, updated_at)
     VALUES ($1, 'bare', 'DRAFT', 'TEXT', 0, 'x', 'x', 'x', 0, 0, now(), now()) RETURNING id`,
    [companyId],
  );
  const rows = contacts(count, 900_000);
  const started = performance.now();
  await sql.query(
    `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name)
     SELECT $1, $2, p, n FROM unnest($3::text[], $4::text[]) AS u(p, n)`,
    [campaign.rows[0].id, companyId, rows.map((r) => r.phoneNumber), rows.map((r) => r.name)],
  );
  return performance.now() - started;
}

interface DispatchResult {
  perSecond: number;
  dbCpuMsPerMessage: number;
  queryLatencyMsPerMessage: number;
}

async function dispatch(
  baseUrl: string,
  headers: Record<string, string>,
  gateway: Record<string, string>,
  fake: FakeEvolutionApi,
  pg: { total(): number; reset(): void },
  campaigns: number,
  perCampaign: number,
): Promise<DispatchResult> {
  const total = campaigns * perCampaign;
  // One instance per campaign: an instance sends one message at a time (its pacing), so
  // campaigns sharing one would measure the pace of one number, not the engine.
  const instanceOf = (c: number): string => `${gateway.gatewayInstance}-${campaigns}-${c}`;
  for (let c = 0; c < campaigns; c += 1) {
    fake.addInstance(instanceOf(c), { apiKey: gateway.gatewayApiKey, state: 'open' });
  }
  const before = fake.sent.length;
  const offset = 2_000_000 + before;
  await Promise.all(
    Array.from({ length: campaigns }, (_v, c) =>
      requestJson(`${baseUrl}/api/campaigns`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: `Envio ${c}`,
          ...gateway,
          gatewayInstance: instanceOf(c),
          message: 'Olá {PrimeiroNome}!',
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
          contacts: contacts(perCampaign, offset + c * perCampaign),
        }),
      }),
    ),
  );
  // The engine's cost starts once the campaigns exist: creating them is measured above.
  pg.reset();
  const cpuBefore = postgresCpuTicks();
  const sentDuringCreation = fake.sent.length - before;
  const sent = await fake.waitForSent(before + total, 600_000);
  const measured = total - sentDuringCreation;
  const first = sent[before].at.getTime();
  const last = sent[before + total - 1].at.getTime();
  const elapsedMs = Math.max(1, last - first);
  return {
    perSecond: (total - 1) / (elapsedMs / 1000),
    dbCpuMsPerMessage: postgresCpuMsBetween(cpuBefore, postgresCpuTicks()) / measured,
    queryLatencyMsPerMessage: pg.total() / measured,
  };
}

interface CampaignApi {
  baseUrl: string;
  headers: Record<string, string>;
  gateway: Record<string, string>;
}

async function measureCreation(
  context: BenchContext,
  sql: Pool,
  companyId: number,
  api: CampaignApi,
): Promise<{ rows: ResultRow[]; checks: Check[] }> {
  const create = async (
    count: number,
    offset: number,
    extra: Record<string, unknown> = {},
  ): Promise<number> => {
    const body = JSON.stringify({
      name: `Bench ${count}`,
      ...api.gateway,
      message: 'Olá {PrimeiroNome}!',
      contacts: contacts(count, offset),
      ...extra,
    });
    const started = performance.now();
    await requestJson(`${api.baseUrl}/api/campaigns`, {
      method: 'POST',
      headers: api.headers,
      body,
    });
    return performance.now() - started;
  };
  // Scheduled far ahead: the whole creation path (gateway check included) without sending.
  const scheduled = { scheduledFor: '2099-01-01T09:00:00' };
  context.log(`block list: ${BLOCKED_NUMBERS} numbers`);
  await sql.query(
    `INSERT INTO blocked_contacts (company_id, phone_number, blocked_by, blocked_at)
     SELECT $1, '55113' || lpad(g::text, 7, '0'), 'IMPORT', now() FROM generate_series(1, $2) g`,
    [companyId, BLOCKED_NUMBERS],
  );
  await sql.query('ANALYZE blocked_contacts');

  await create(1000, 0, scheduled);
  const times10k: number[] = [];
  for (let round = 0; round < CREATE_10K_ROUNDS; round += 1) {
    times10k.push(await create(10_000, round * 10_000, scheduled));
  }
  const bare10k = await bareInsert(sql, companyId, 10_000);
  // 100,000 contacts, a tenth of them on the block list.
  const hundredK = contacts(100_000, 500_000).map((c, i) =>
    i % 10 === 0 ? { ...c, phoneNumber: blockedPhoneOf(i + 1) } : c,
  );
  const create100k = await withPeakRss(async () => {
    const started = performance.now();
    const body = JSON.stringify({
      name: 'Bench 100k',
      ...api.gateway,
      message: 'Olá!',
      contacts: hundredK,
      ...scheduled,
    });
    const created = await requestJson(`${api.baseUrl}/api/campaigns`, {
      method: 'POST',
      headers: api.headers,
      body,
    });
    return { ms: performance.now() - started, created };
  });
  const bare100k = await bareInsert(sql, companyId, 100_000);
  const p50 = median(times10k);
  return {
    rows: [
      {
        measure: `create 10,000 contacts (p50 of ${CREATE_10K_ROUNDS})`,
        ms: Math.round(p50),
        bareInsertMs: Math.round(bare10k),
        ratio: +(p50 / bare10k).toFixed(2),
      },
      {
        measure: 'create 100,000 contacts, 100,000 blocked',
        ms: Math.round(create100k.result.ms),
        bareInsertMs: Math.round(bare100k),
        ratio: +(create100k.result.ms / bare100k).toFixed(2),
        blockedRemoved: create100k.result.created.blockedContactsRemoved as number,
        peakRssMb: Math.round(create100k.peakRssMb),
        rssGrowthMb: Math.round(create100k.peakRssMb - create100k.baseRssMb),
      },
    ],
    checks: [
      {
        name: `create 10k p50: ${CREATE_10K_P50_TARGET_MS} ms − p50`,
        value: CREATE_10K_P50_TARGET_MS - p50,
        atLeast: 0,
      },
      {
        name: `create 100k: ${CREATE_100K_TARGET_MS} ms − time`,
        value: CREATE_100K_TARGET_MS - create100k.result.ms,
        atLeast: 0,
      },
      {
        name: `create 100k within ${BARE_INSERT_RATIO_TARGET}× bare unnest: ${BARE_INSERT_RATIO_TARGET} − ratio`,
        value: BARE_INSERT_RATIO_TARGET - create100k.result.ms / bare100k,
        atLeast: 0,
      },
    ],
  };
}

async function measureDispatch(
  context: BenchContext,
  baseUrl: string,
  headers: Record<string, string>,
  gateway: Record<string, string>,
  fake: FakeEvolutionApi,
): Promise<{ rows: ResultRow[]; checks: Check[] }> {
  const pg = instrumentPg();
  context.onCleanup(() => Promise.resolve(pg.restore()));
  context.log('dispatch: one campaign of 2,000 contacts, zero intervals');
  const single = await dispatch(baseUrl, headers, gateway, fake, pg, 1, 2000);
  context.log('dispatch: 100 campaigns of 50 contacts at once');
  const concurrent = await dispatch(baseUrl, headers, gateway, fake, pg, 100, 50);
  const row = (measure: string, result: DispatchResult): ResultRow => ({
    measure,
    messagesPerSecond: Math.round(result.perSecond),
    dbCpuMsPerMessage: +result.dbCpuMsPerMessage.toFixed(2),
    queryLatencyMsPerMessage: +result.queryLatencyMsPerMessage.toFixed(2),
  });
  return {
    rows: [
      row('dispatch, 1 campaign × 2,000', single),
      row('dispatch, 100 campaigns × 50', concurrent),
    ],
    checks: [
      {
        name: `DB CPU ms per message (100 campaigns): ${DB_MS_PER_MESSAGE_TARGET} − value`,
        value: DB_MS_PER_MESSAGE_TARGET - concurrent.dbCpuMsPerMessage,
        atLeast: 0,
      },
      {
        name: `DB CPU ms per message (1 campaign): ${DB_MS_PER_MESSAGE_TARGET} − value`,
        value: DB_MS_PER_MESSAGE_TARGET - single.dbCpuMsPerMessage,
        atLeast: 0,
      },
      {
        // Reported only: two commits per message wait for the WAL flush (the SENDING and SENT
        // markers must be durable), which is disk latency rather than database work.
        name: 'query latency ms per message (1 campaign)',
        value: single.queryLatencyMsPerMessage,
      },
      {
        name: 'messages/s with 100 campaigns',
        value: concurrent.perSecond,
        atLeast: CONCURRENT_MESSAGES_PER_SECOND_TARGET,
      },
    ],
  };
}

/** CPU ticks used so far by each PostgreSQL server process on this machine, by pid. */
function postgresCpuTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (comm === 'postgres') {
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks.set(pid, Number(fields[11]) + Number(fields[12]));
      }
    } catch {
      // The process ended while we read.
    }
  }
  return ticks;
}

/**
 * Milliseconds of PostgreSQL CPU between two snapshots: each process's growth, a process born
 * in between counted whole. A process that ended in between is not counted (its last ticks
 * are gone), so the figure errs low by what exiting backends used, which the pool keeps rare.
 */
function postgresCpuMsBetween(before: Map<string, number>, after: Map<string, number>): number {
  const ticksPerSecond = 100;
  let ticks = 0;
  for (const [pid, used] of after) {
    ticks += used - (before.get(pid) ?? 0);
  }
  return (ticks / ticksPerSecond) * 1000;
}

/**
 * 100,000 contacts on a pool of POOL_SENDERS numbers against the same on one saved number: the
 * pool's creation saves a row per sender and gives each contact its sender in the insert.
 */
async function measurePoolCreation(
  context: BenchContext,
  api: CampaignApi & { gatewayUrl: string },
): Promise<{ rows: ResultRow[]; checks: Check[] }> {
  const configIds: number[] = [];
  for (let i = 0; i < POOL_SENDERS; i += 1) {
    const saved = await requestJson(`${api.baseUrl}/api/gateway-configs`, {
      method: 'POST',
      headers: api.headers,
      body: JSON.stringify({
        name: `Pool ${i}`,
        url: api.gatewayUrl,
        apiKey: 'bench-key',
        instance: `bench-pool-${i}`,
      }),
    });
    configIds.push(saved.id as number);
  }
  const create = async (round: number, senders: Record<string, unknown>): Promise<number> => {
    const body = JSON.stringify({
      name: 'Bench pool',
      message: 'Olá {PrimeiroNome}!',
      contacts: contacts(100_000, 2_000_000 + round * 100_000),
      scheduledFor: '2099-01-01T09:00:00',
      ...senders,
    });
    const started = performance.now();
    await requestJson(`${api.baseUrl}/api/campaigns`, {
      method: 'POST',
      headers: api.headers,
      body,
    });
    return performance.now() - started;
  };
  const single: number[] = [];
  const pooled: number[] = [];
  for (let round = 0; round < POOL_CREATION_ROUNDS; round += 1) {
    context.log(`pool creation round ${round + 1} of ${POOL_CREATION_ROUNDS}`);
    single.push(await create(round * 2, { gatewayConfigId: configIds[0] }));
    pooled.push(await create(round * 2 + 1, { gatewayConfigIds: configIds }));
  }
  const ratio = median(pooled) / median(single);
  return {
    rows: [
      {
        measure: 'create 100,000 contacts on 1 saved number (median)',
        ms: Math.round(median(single)),
      },
      {
        measure: `create 100,000 contacts on a pool of ${POOL_SENDERS} (median)`,
        ms: Math.round(median(pooled)),
        ratio: +ratio.toFixed(2),
      },
    ],
    checks: [
      {
        name: `pool of ${POOL_SENDERS} within ${POOL_CREATION_RATIO_TARGET}× one number: ${POOL_CREATION_RATIO_TARGET} − ratio`,
        value: POOL_CREATION_RATIO_TARGET - ratio,
        atLeast: 0,
      },
    ],
  };
}
