import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../src/config/app-config.service';
import { DispatchClaimRepository } from '../src/modules/campaigns/infrastructure/dispatch-claim.repository';
import { CLAIM_LISTED } from '../src/modules/campaigns/infrastructure/dispatch-claim.sql';
import { DispatchMonitoringRepository } from '../src/modules/campaigns/infrastructure/dispatch-monitoring.repository';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, requestJson, type BenchCompany } from './support/api';
import {
  defineBenchmark,
  type BenchContext,
  type Check,
  type ResultRow,
} from './support/benchmark';
import type { RunningBenchApp } from './support/app';
import type { BenchDatabase } from './support/database';
import { databaseUsage, startBenchWorker, type BenchWorker } from './support/worker-process';

/** Targets of the pacing issue. */
const LATENESS_P99_TARGET_MS = 1000;
const MIN_PAUSE_S = 1;
const MAX_PAUSE_S = 3;
/**
 * A gap between two arrivals at the fake gateway may look this much shorter than it was: the
 * fake stamps a request when this process's event loop reads it, and this process also runs
 * the fake for 1,000 instances (see test/e2e/campaigns/instance-pacing-workers.e2e-spec.ts).
 */
const GAP_TOLERANCE_MS = 50;

export const ENCRYPTION_KEY = 'bench-pacing-encryption-key-0123456789';

/**
 * The API only, in this process (no dispatch here: the workers are processes of their own), a
 * small pool on the run's database and a registered company.
 */
export async function startApiOnly(context: BenchContext): Promise<{
  service: RunningBenchApp;
  database: BenchDatabase;
  sql: Pool;
  company: BenchCompany;
}> {
  const service = await context.startApp({
    env: { ROLE: 'api', ENCRYPTION_KEY, CAMPAIGN_CREATIONS_PER_HOUR: '1000000' },
  });
  const database = await context.database();
  const sql = new Pool({ connectionString: database.url, max: 2 });
  sql.on('error', () => undefined);
  context.onCleanup(() => sql.end());
  const company = await registerBenchCompany(service.baseUrl);
  return { service, database, sql, company };
}
export const API_KEY = 'bench-pacing-key';
export const instanceName = (i: number): string => `pace-${i}`;
/** Contact k of campaign j: a valid São Paulo mobile, unique over the bench. */
const phoneOf = (j: number, k: number): string => `55119${10_000_000 + j * 100 + k}`;

export interface PacingSettings {
  instances: number;
  campaigns: number;
  contactsPerCampaign: number;
  warmupSeconds: number;
  durationSeconds: number;
  workerCounts: number[];
  /** Senders per pool campaign (1: every campaign on its own number). */
  poolSize: number;
}

/**
 * BENCH_PACING_INSTANCES (1000), BENCH_PACING_CAMPAIGNS (5000), BENCH_PACING_CONTACTS (60 per
 * campaign), BENCH_PACING_WARMUP (20 s), BENCH_PACING_DURATION (75 s) and
 * BENCH_PACING_WORKERS ("1,2": one run per figure, in that order); BENCH_PACING_POOL (1): the
 * campaigns grouped into pool campaigns of that many senders, each on another instance.
 */
export function settingsFrom(env: NodeJS.ProcessEnv): PacingSettings {
  const read = (name: string, fallback: number, min: number): number => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isInteger(value) || value < min) {
      throw new Error(`${name}=${env[name]}: expected an integer ≥ ${min}`);
    }
    return value;
  };
  const workerCounts = (env.BENCH_PACING_WORKERS ?? '1,2').split(',').map(Number);
  if (workerCounts.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`BENCH_PACING_WORKERS=${env.BENCH_PACING_WORKERS}: expected e.g. 1,2`);
  }
  const settings = {
    instances: read('BENCH_PACING_INSTANCES', 1000, 1),
    campaigns: read('BENCH_PACING_CAMPAIGNS', 5000, 1),
    contactsPerCampaign: read('BENCH_PACING_CONTACTS', 60, 1),
    warmupSeconds: read('BENCH_PACING_WARMUP', 20, 0),
    durationSeconds: read('BENCH_PACING_DURATION', 75, 1),
    workerCounts,
    poolSize: read('BENCH_PACING_POOL', 1, 1),
  };
  if (settings.poolSize > settings.instances || settings.campaigns % settings.poolSize !== 0) {
    throw new Error('a pool’s senders need instances of their own, and whole pools of campaigns');
  }
  if (settings.contactsPerCampaign > 99 || settings.campaigns > 800_000) {
    throw new Error('at most 99 contacts per campaign and 800,000 campaigns (phone numbers)');
  }
  return settings;
}

/**
 * Pacing accuracy at scale: 5,000 ACTIVE campaigns on 1,000 gateway instances (five per
 * instance), pauses of 1–3 s, sent by one and then two worker processes (src/main.ts,
 * ROLE=worker) to the fake Evolution API in this process. For every send: how late it came
 * behind its slot, and the gap since the instance's previous message.
 *
 * `npm run bench -- pacing`. docs/PERFORMANCE.md, "Pacing accuracy".
 */
export default defineBenchmark({
  name: 'pacing',
  description:
    'pacing accuracy: 5,000 campaigns on 1,000 instances, 1–3 s pauses, 1 and 2 worker processes',
  async run(context) {
    const settings = settingsFrom(process.env);
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    for (let i = 0; i < settings.instances; i += 1) {
      fake.addInstance(instanceName(i), { apiKey: API_KEY, state: 'open' });
    }
    const { service, database, sql, company } = await startApiOnly(context);
    await seed(context, sql, service.baseUrl, company, fake.url, settings);
    await installTakeLog(sql);

    const rows: ResultRow[] = [];
    const checks: Check[] = [];
    const runs: RunFigures[] = [];
    for (const workers of settings.workerCounts) {
      const run = await measureRun(context, sql, database, fake, workers, settings);
      runs.push(run);
      const label = `${workers} worker${workers > 1 ? 's' : ''}`;
      rows.push({
        workers,
        'sent msg/s': round(run.sentPerSecond, 1),
        'scheduled msg/s': round(run.scheduledPerSecond, 1),
        'late p50 ms': Math.round(run.lateness.p50),
        'late p99 ms': Math.round(run.lateness.p99),
        'late max ms': Math.round(run.lateness.max),
        'idle p99 ms': Math.round(run.instanceIdle.p99),
        'min gap ms': run.minGapMs,
        [`gaps < ${MIN_PAUSE_S * 1000 - GAP_TOLERANCE_MS} ms`]: run.gapsBelowPause,
        'worker CPU %': Math.round(run.workerCpuPercent),
        'PG CPU ms/msg': round(run.postgresCpuMsPerMessage, 2),
        'xacts/msg': round(run.transactionsPerMessage, 1),
        'buffers/msg': Math.round(run.buffersPerMessage),
        'WAL B/msg': Math.round(run.walBytesPerMessage),
        leased: Math.round(run.queue.meanLeased),
        'due, not leased': Math.round(run.queue.meanDueNotLeased),
      });
      checks.push(
        {
          name: `p99 lateness behind the slot, ${label}: ${LATENESS_P99_TARGET_MS} ms − p99`,
          value: LATENESS_P99_TARGET_MS - run.lateness.p99,
          atLeast: 0,
        },
        {
          name: `gaps below the ${MIN_PAUSE_S} s pause (less ${GAP_TOLERANCE_MS} ms), ${label}: 0 − count`,
          value: -run.gapsBelowPause,
          atLeast: 0,
        },
        {
          name: `sent / scheduled, ${label}`,
          value: run.sentPerSecond / run.scheduledPerSecond,
          format: 'percent',
        },
      );
    }
    return {
      rows,
      checks,
      notes: [
        `${settings.campaigns} ACTIVE campaigns on ${settings.instances} instances (one campaign per instance in turn), pauses ${MIN_PAUSE_S}–${MAX_PAUSE_S} s, ${settings.contactsPerCampaign} contacts each; for each worker count, ${settings.warmupSeconds} s of warm-up (the start-up burst: every campaign is due at once) then ${settings.durationSeconds} s measured. Runs follow each other on the same campaigns.`,
        'Data: one gateway configuration and one campaign created through the API, then cloned in SQL (every column copied from the API-made rows; name, instance, campaign id, phone numbers and the started event’s campaignId replaced).',
        'Slot: a trigger of this bench on campaign_contacts notes, when a contact is marked SENDING, the campaign’s next_send_at and the end of its pause after the instance’s last message (last_message_at + its [min, max] at the point the last message’s pause was drawn, pause_draw): the later of the two is the earliest the engine allowed that send (its slot). Lateness = arrival at the fake gateway − slot. Idle = arrival − the earliest slot of any ACTIVE campaign of the instance (how long the number waited while it could have sent).',
        `Scheduled msg/s: each instance sends at the pace its slots set, ${settings.instances} instances / their mean (slot − previous arrival); after every message each of the instance's five campaigns waits its own pause, all drawn at the same point of their 1–3 s range, so the instance's next slot is one 1–3 s draw, 2 s on average (until the pause moved to the instance each campaign drew its own, and the slot was the smallest of five draws, about 1.35 s on average).`,
        `Gaps: between consecutive arrivals of one instance at the fake gateway (this process's clock, as the database's: same machine); a gap below ${MIN_PAUSE_S} s − ${GAP_TOLERANCE_MS} ms would break the pause.`,
        'Leased / due, not leased: campaigns under a worker’s lease and campaigns whose next_send_at passed without one (some of them wait for their instance), sampled once a second; a worker leases at most 128 at once (MAX_CAMPAIGNS_IN_FLIGHT).',
        "CPU: worker processes and the PostgreSQL backends of the bench database (utime + stime in /proc); xacts/msg: commits + rollbacks of the database per message (every autocommit statement is one); buffers/msg: shared buffers its statements touched (pg_stat_database blks_hit + blks_read), WAL B/msg: the server's WAL bytes (pg_stat_wal), per message: counts of work that a shared host's steal time does not blur, as it does CPU time.",
        'BENCH_PACING_INSTANCES, _CAMPAIGNS, _CONTACTS, _WARMUP, _DURATION and _WORKERS (e.g. "1,2") change the run.',
      ],
      details: { settings, runs },
    };
  },
});

/** Rows the API writes, cloned: every column copied from `t` unless `overrides` computes it. */
async function cloneRows(
  sql: Pool,
  table: string,
  overrides: Record<string, string>,
  from: string,
  params: unknown[],
): Promise<number> {
  const { rows } = await sql.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND column_name <> 'id' AND is_generated = 'NEVER'
      ORDER BY ordinal_position`,
    [table],
  );
  const columns = rows.map((r) => r.column_name);
  const unknown = Object.keys(overrides).filter((c) => !columns.includes(c));
  if (unknown.length > 0) {
    throw new Error(`${table} has no column ${unknown.join(', ')}`);
  }
  const result = await sql.query(
    `INSERT INTO ${table} (${columns.join(', ')})
     SELECT ${columns.map((c) => overrides[c] ?? `t.${c}`).join(', ')} ${from}`,
    params,
  );
  return result.rowCount ?? 0;
}

/**
 * One gateway configuration and one campaign through the API (instance 0), then as many
 * configurations and campaigns as the settings ask, cloned from those rows in SQL: creating
 * 5,000 campaigns over HTTP would take minutes of the bench's time.
 */
export async function seed(
  context: BenchContext,
  sql: Pool,
  baseUrl: string,
  company: BenchCompany,
  gatewayUrl: string,
  settings: PacingSettings,
): Promise<void> {
  const started = performance.now();
  const headers = { 'X-Access-Token': company.token, 'Content-Type': 'application/json' };
  const config = await requestJson(`${baseUrl}/api/gateway-configs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: `Pacing ${instanceName(0)}`,
      url: gatewayUrl,
      apiKey: API_KEY,
      instance: instanceName(0),
    }),
  });
  const template = await requestJson(`${baseUrl}/api/campaigns`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      name: 'Pacing 0',
      gatewayConfigId: config.id,
      message: 'Olá {PrimeiroNome}!',
      intervalMinSeconds: MIN_PAUSE_S,
      intervalMaxSeconds: MAX_PAUSE_S,
      contacts: Array.from({ length: settings.contactsPerCampaign }, (_v, k) => ({
        phoneNumber: phoneOf(0, k),
        name: `Contato ${k}`,
      })),
    }),
  });
  // The clones derive phone numbers and gateway fields as the API stored them for the template.
  const stored = await sql.query<{ phone_number: string }>(
    `SELECT phone_number FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [template.id],
  );
  const expected = Array.from({ length: settings.contactsPerCampaign }, (_v, k) => phoneOf(0, k));
  if (JSON.stringify(stored.rows.map((r) => r.phone_number)) !== JSON.stringify(expected)) {
    throw new Error('the API stored the template’s phone numbers in another form');
  }
  const gatewayFields = await sql.query(
    `SELECT c.gateway_name = g.name AND c.gateway_url = g.url AND c.gateway_instance = g.instance AS same
       FROM campaigns c JOIN gateway_configs g ON g.id = c.gateway_config_id WHERE c.id = $1`,
    [template.id],
  );
  if (gatewayFields.rows[0]?.same !== true) {
    throw new Error('the API stored the campaign’s gateway fields unlike its configuration’s');
  }

  await cloneRows(
    sql,
    'gateway_configs',
    { name: `'Pacing pace-' || i`, instance: `'pace-' || i` },
    `FROM gateway_configs t, generate_series(1, $2::int - 1) i WHERE t.id = $1`,
    [config.id, settings.instances],
  );
  await cloneRows(
    sql,
    'campaigns',
    {
      name: `'Pacing ' || j`,
      gateway_config_id: 'g.id',
      gateway_name: 'g.name',
      gateway_url: 'g.url',
      gateway_instance: 'g.instance',
    },
    `FROM campaigns t, generate_series(1, $2::int - 1) j, gateway_configs g
      WHERE t.id = $1 AND g.company_id = t.company_id AND g.instance = 'pace-' || (j % $3::int)`,
    [template.id, settings.campaigns, settings.instances],
  );
  await cloneRows(
    sql,
    'campaign_contacts',
    {
      campaign_id: 'c.id',
      phone_number: `'55119' || (10000000 + c.j * 100 + t.k)::text`,
    },
    `FROM (SELECT *, row_number() OVER (ORDER BY id) - 1 AS k FROM campaign_contacts WHERE campaign_id = $1) t,
          (SELECT id, substring(name from '^Pacing ([0-9]+)$')::int AS j FROM campaigns
            WHERE company_id = $2 AND id <> $1) c`,
    [template.id, company.id],
  );
  await cloneRows(
    sql,
    'outbox_events',
    { campaign_id: 'c.id', payload: `jsonb_set(t.payload, '{campaignId}', to_jsonb(c.id))` },
    `FROM outbox_events t, campaigns c
      WHERE t.campaign_id = $1 AND c.company_id = $2 AND c.id <> $1`,
    [template.id, company.id],
  );
  if (settings.poolSize > 1) {
    await groupIntoPools(sql, company.id, template.id, settings.poolSize);
  }
  await sql.query('ANALYZE gateway_configs, campaigns, campaign_contacts, outbox_events');
  const counts = await sql.query<{ campaigns: number; contacts: number; instances: number }>(
    `SELECT (SELECT count(*)::int FROM campaigns WHERE company_id = $1 AND status = 'ACTIVE'
               AND pool_id IS DISTINCT FROM id) AS campaigns,
            (SELECT count(*)::int FROM campaign_contacts WHERE company_id = $1 AND status = 'PENDING') AS contacts,
            (SELECT count(DISTINCT gateway_config_id)::int FROM campaigns WHERE company_id = $1) AS instances`,
    [company.id],
  );
  const { campaigns, contacts, instances } = counts.rows[0];
  if (
    campaigns !== settings.campaigns ||
    instances !== Math.min(settings.instances, settings.campaigns) ||
    contacts !== settings.campaigns * settings.contactsPerCampaign
  ) {
    throw new Error(`seeded ${campaigns} campaigns, ${instances} instances, ${contacts} contacts`);
  }
  context.log(
    `seeded ${campaigns} campaigns on ${instances} instances, ${contacts} contacts in ${Math.round(performance.now() - started)} ms`,
  );
}

/**
 * The campaigns as pool campaigns of `poolSize` senders (domain/sender-pool.ts): campaigns
 * j … j + poolSize − 1 (consecutive instances) become the senders of one pool, whose own row is
 * cloned from the template (it never sends; the supervisor follows it). Each sender keeps the
 * contacts it has, as a pool's creation would have given them.
 */
async function groupIntoPools(
  sql: Pool,
  companyId: number,
  templateId: number,
  poolSize: number,
): Promise<void> {
  await sql.query(
    `WITH senders AS (
       SELECT id, coalesce(substring(name from '^Pacing ([0-9]+)$')::int, 0) AS j FROM campaigns WHERE company_id = $1)
     UPDATE campaigns c SET name = 'Pool ' || (s.j / $2) || ' sender ' || (s.j % $2)
       FROM senders s WHERE c.id = s.id`,
    [companyId, poolSize],
  );
  await cloneRows(
    sql,
    'campaigns',
    { name: `'Pool ' || g` },
    `FROM campaigns t, generate_series(0, (SELECT count(*) FROM campaigns WHERE company_id = $2)::int / $3 - 1) g
      WHERE t.id = $1`,
    [templateId, companyId, poolSize],
  );
  await sql.query(
    `UPDATE campaigns SET pool_id = id WHERE company_id = $1 AND name ~ '^Pool [0-9]+$'`,
    [companyId],
  );
  await sql.query(
    `UPDATE campaigns s SET pool_id = p.id
       FROM campaigns p
      WHERE s.company_id = $1 AND p.company_id = $1 AND p.pool_id = p.id
        AND s.name LIKE p.name || ' sender %'`,
    [companyId],
  );
}

/**
 * The bench's own instrument (not the service's): when a contact becomes SENDING, the slot the
 * engine gave that send, read from the rows the claim and the hold decided on.
 */
export async function installTakeLog(sql: Pool): Promise<void> {
  await sql.query(`
    CREATE UNLOGGED TABLE bench_pacing_takes (
      contact_id bigint NOT NULL,
      gateway_config_id integer NOT NULL,
      taken_at timestamptz NOT NULL,
      own_slot timestamptz,
      instance_slot timestamptz)`);
  await sql.query(`
    CREATE FUNCTION bench_pacing_note_take() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO bench_pacing_takes
      SELECT NEW.id, c.gateway_config_id, now(),
             greatest(c.next_send_at, pause_ends_at(p.last_message_at, p.pause_draw, c.min_interval, c.max_interval)),
             (SELECT min(greatest(s.next_send_at, pause_ends_at(p.last_message_at, p.pause_draw, s.min_interval, s.max_interval)))
                FROM campaigns s WHERE s.gateway_config_id = c.gateway_config_id AND s.status = 'ACTIVE')
        FROM campaigns c LEFT JOIN instance_pacing p ON p.gateway_config_id = c.gateway_config_id
       WHERE c.id = NEW.campaign_id;
      RETURN NULL;
    END $$`);
  await sql.query(`
    CREATE TRIGGER bench_pacing_note_take AFTER UPDATE OF status ON campaign_contacts
      FOR EACH ROW WHEN (NEW.status = 'SENDING' AND OLD.status <> 'SENDING')
      EXECUTE FUNCTION bench_pacing_note_take()`);
}

export interface Distribution {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

export interface RunFigures {
  workers: number;
  loadAverageAtStart: number;
  windowSeconds: number;
  sent: number;
  sentPerSecond: number;
  scheduledPerSecond: number;
  meanScheduledGapMs: number;
  meanActualGapMs: number;
  lateness: Distribution;
  instanceIdle: Distribution;
  /** Slot → contact marked SENDING (database clock): the claim and the hold. */
  slotToTake: Distribution;
  /** Contact marked SENDING → arrival at the fake gateway: preparing and the HTTP request. */
  takeToArrival: Distribution;
  latenessFirst10s: Distribution;
  latenessLast10s: Distribution;
  minGapMs: number;
  gapsBelowPause: number;
  gapsBelowOneSecond: number;
  gap: Distribution;
  /** Sends in the window without a noted slot (should be 0). */
  unmatched: number;
  campaignsNoLongerActive: number;
  workerCpuPercent: number;
  postgresCpuMsPerMessage: number;
  transactionsPerMessage: number;
  /** Shared buffers the database's statements touched, per message (see DatabaseUsage). */
  buffersPerMessage: number;
  /** WAL the server wrote, per message. */
  walBytesPerMessage: number;
  fakeGateway: { cpuMsPerRequest: number; eventLoopUtilization: number };
  workerLog: Array<{ warn: number; error: number }>;
  /** Campaigns leased by the workers, and due but not leased, on average over the window. */
  queue: { meanLeased: number; meanDueNotLeased: number };
  explain: ExplainFigures;
}

export async function measureRun(
  context: BenchContext,
  sql: Pool,
  database: BenchDatabase,
  fake: FakeEvolutionApi,
  workers: number,
  settings: PacingSettings,
): Promise<RunFigures> {
  await sql.query('TRUNCATE bench_pacing_takes');
  fake.reset();
  const [loadAverageAtStart] = loadavg();
  context.log(`${workers} worker process(es): starting`);
  const processes = await Promise.all(
    Array.from({ length: workers }, () => startBenchWorker(database.url, { ENCRYPTION_KEY })),
  );
  let stopped = false;
  const stopAll = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      await Promise.all(processes.map((p) => p.stop()));
    }
  };
  context.onCleanup(stopAll);
  context.log(
    `${workers} worker process(es) sending: ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured`,
  );
  await sleep(settings.warmupSeconds * 1000);
  const before = await snapshot(sql, database.name, processes, fake);
  const windowStart = Date.now();
  const queue = await sampleQueue(sql, windowStart + settings.durationSeconds * 1000);
  const windowEnd = Date.now();
  const after = await snapshot(sql, database.name, processes, fake);
  const explain = await explainEngineStatements(database.url);
  const workerLog = processes.map((p) => p.logged());
  await stopAll();

  const { rows: takes } = await sql.query<TakeRow>(
    `SELECT cc.phone_number AS phone, t.gateway_config_id AS instance,
            extract(epoch FROM t.taken_at) * 1000 AS taken,
            extract(epoch FROM t.own_slot) * 1000 AS own,
            extract(epoch FROM t.instance_slot) * 1000 AS "instanceSlot"
       FROM bench_pacing_takes t JOIN campaign_contacts cc ON cc.id = t.contact_id
      ORDER BY t.taken_at`,
  );
  const { rows: ended } = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM campaigns WHERE status <> 'ACTIVE'`,
  );
  const sends = fake.sent
    .filter((s) => s.instance.startsWith('pace-'))
    .map((s) => ({ instance: s.instance, phone: s.number, at: s.at.getTime() }));
  fake.reset();
  const figures = analyse(sends, takes, windowStart, windowEnd);
  const windowSeconds = (windowEnd - windowStart) / 1000;
  const messages = Math.max(1, figures.sent);
  return {
    workers,
    loadAverageAtStart: round(loadAverageAtStart, 2),
    windowSeconds,
    ...figures,
    sentPerSecond: figures.sent / windowSeconds,
    campaignsNoLongerActive: ended[0].n,
    workerCpuPercent: ((after.workerCpuMs - before.workerCpuMs) / (windowSeconds * 1000)) * 100,
    postgresCpuMsPerMessage: cpuBetween(before.postgresCpuMs, after.postgresCpuMs) / messages,
    transactionsPerMessage: (after.transactions - before.transactions) / messages,
    buffersPerMessage: (after.buffers - before.buffers) / messages,
    walBytesPerMessage: (after.walBytes - before.walBytes) / messages,
    fakeGateway: {
      cpuMsPerRequest:
        (after.harnessCpuMs - before.harnessCpuMs) / Math.max(1, after.requests - before.requests),
      eventLoopUtilization: round(
        performance.eventLoopUtilization(after.elu, before.elu).utilization,
        3,
      ),
    },
    workerLog,
    queue,
    explain,
  };
}

/**
 * Once a second until `until`: campaigns leased by the workers (a worker sends to at most
 * MAX_CAMPAIGNS_IN_FLIGHT = 128 at once) and campaigns due but not leased, means over the samples.
 */
async function sampleQueue(sql: Pool, until: number): Promise<RunFigures['queue']> {
  const leased: number[] = [];
  const waiting: number[] = [];
  while (Date.now() < until) {
    const next = Date.now() + 1000;
    const { rows } = await sql.query<{ leased: number; waiting: number }>(
      `SELECT count(*) FILTER (WHERE locked_until >= now())::int AS leased,
              count(*) FILTER (WHERE next_send_at <= now() AND (locked_until IS NULL OR locked_until < now()))::int AS waiting
         FROM campaigns WHERE status = 'ACTIVE'`,
    );
    leased.push(rows[0].leased);
    waiting.push(rows[0].waiting);
    await sleep(Math.max(0, Math.min(next, until) - Date.now()));
  }
  const mean = (values: number[]): number =>
    round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length), 1);
  return { meanLeased: mean(leased), meanDueNotLeased: mean(waiting) };
}

interface TakeRow {
  phone: string;
  instance: number;
  taken: number;
  own: number | null;
  instanceSlot: number | null;
}

interface Snapshot {
  workerCpuMs: number;
  postgresCpuMs: Map<number, number>;
  transactions: number;
  buffers: number;
  walBytes: number;
  harnessCpuMs: number;
  requests: number;
  elu: ReturnType<typeof performance.eventLoopUtilization>;
}

async function snapshot(
  sql: Pool,
  databaseName: string,
  workers: BenchWorker[],
  fake: FakeEvolutionApi,
): Promise<Snapshot> {
  const database = await databaseUsage(sql, databaseName);
  const usage = process.cpuUsage();
  return {
    workerCpuMs: workers.reduce((sum, w) => sum + w.cpuMs(), 0),
    ...database,
    harnessCpuMs: (usage.user + usage.system) / 1000,
    requests: fake.requests.length,
    elu: performance.eventLoopUtilization(),
  };
}

/** CPU of the backends between two snapshots: each one's growth, one born in between counted whole. */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, used] of after) {
    ms += used - (before.get(pid) ?? 0);
  }
  return ms;
}

export function distribution(values: number[]): Distribution {
  if (values.length === 0) {
    return { p50: NaN, p99: NaN, max: NaN, count: 0 };
  }
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return {
    p50: round(at(0.5), 1),
    p99: round(at(0.99), 1),
    max: round(sorted[sorted.length - 1], 1),
    count: sorted.length,
  };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

type Analysis = Omit<
  RunFigures,
  | 'workers'
  | 'loadAverageAtStart'
  | 'windowSeconds'
  | 'sentPerSecond'
  | 'campaignsNoLongerActive'
  | 'workerCpuPercent'
  | 'postgresCpuMsPerMessage'
  | 'transactionsPerMessage'
  | 'buffersPerMessage'
  | 'walBytesPerMessage'
  | 'fakeGateway'
  | 'workerLog'
  | 'queue'
  | 'explain'
>;

/**
 * Per instance, its arrivals in order; for each arrival in the window, the gap since the
 * instance's previous arrival and how late it came behind its slot (its take's noted slot).
 */
function analyse(
  sends: Array<{ instance: string; phone: string; at: number }>,
  takes: TakeRow[],
  windowStart: number,
  windowEnd: number,
): Analysis {
  // A contact is taken once here (the fake never fails a send); the last take wins otherwise.
  const takeOf = new Map(takes.map((t) => [t.phone, t]));
  const minGapOf = new Map<string, number>();
  const arrivals = new Map<string, Array<{ phone: string; at: number }>>();
  for (const send of sends) {
    const list = arrivals.get(send.instance) ?? [];
    list.push({ phone: send.phone, at: send.at });
    arrivals.set(send.instance, list);
  }
  const inWindow = (at: number): boolean => at >= windowStart && at < windowEnd;
  const gaps: number[] = [];
  const lateness: Array<{ at: number; ms: number }> = [];
  const idle: number[] = [];
  const slotToTake: number[] = [];
  const takeToArrival: number[] = [];
  const scheduledGaps = new Map<string, number[]>();
  let sent = 0;
  let unmatched = 0;
  for (const [instance, list] of arrivals) {
    list.sort((a, b) => a.at - b.at);
    for (let i = 0; i < list.length; i += 1) {
      const { phone, at } = list[i];
      if (!inWindow(at)) {
        continue;
      }
      sent += 1;
      const previous = i > 0 ? list[i - 1].at : null;
      if (previous !== null) {
        gaps.push(at - previous);
        minGapOf.set(instance, Math.min(minGapOf.get(instance) ?? Infinity, at - previous));
      }
      const take = takeOf.get(phone);
      if (!take || take.own === null || take.instanceSlot === null) {
        unmatched += 1;
        continue;
      }
      lateness.push({ at, ms: at - take.own });
      idle.push(at - take.instanceSlot);
      slotToTake.push(take.taken - take.own);
      takeToArrival.push(at - take.taken);
      if (previous !== null) {
        const scheduled = scheduledGaps.get(instance) ?? [];
        scheduled.push(take.instanceSlot - previous);
        scheduledGaps.set(instance, scheduled);
      }
    }
  }
  // Each instance sends at the pace its slots set: 1 / its mean scheduled gap, summed.
  let scheduledPerSecond = 0;
  let scheduledSum = 0;
  let scheduledCount = 0;
  for (const list of scheduledGaps.values()) {
    const mean = list.reduce((a, b) => a + b, 0) / list.length;
    scheduledPerSecond += 1000 / mean;
    scheduledSum += list.reduce((a, b) => a + b, 0);
    scheduledCount += list.length;
  }
  return {
    sent,
    scheduledPerSecond,
    meanScheduledGapMs: round(scheduledSum / Math.max(1, scheduledCount), 1),
    meanActualGapMs: round(gaps.reduce((a, b) => a + b, 0) / Math.max(1, gaps.length), 1),
    lateness: distribution(lateness.map((l) => l.ms)),
    instanceIdle: distribution(idle),
    slotToTake: distribution(slotToTake),
    takeToArrival: distribution(takeToArrival),
    latenessFirst10s: distribution(
      lateness.filter((l) => l.at < windowStart + 10_000).map((l) => l.ms),
    ),
    latenessLast10s: distribution(
      lateness.filter((l) => l.at >= windowEnd - 10_000).map((l) => l.ms),
    ),
    minGapMs: minGapOf.size > 0 ? Math.min(...minGapOf.values()) : NaN,
    gapsBelowPause: gaps.filter((g) => g < MIN_PAUSE_S * 1000 - GAP_TOLERANCE_MS).length,
    gapsBelowOneSecond: gaps.filter((g) => g < MIN_PAUSE_S * 1000).length,
    gap: distribution(gaps),
    unmatched,
  };
}

interface ExplainFigures {
  dueCampaigns: number;
  claim: { planningMs: number[]; executionMs: number[]; plan: string };
  msUntilNextDue: { planningMs: number[]; executionMs: number[]; plan: string };
}

interface CapturedStatement {
  text: string;
  params: unknown[];
}

/**
 * A stand-in for the data source that keeps the engine's prepared statements instead of
 * running them (see queryPrepared), except the count of due instances, read for real.
 */
function statementRecorder(client: Pool, captured: CapturedStatement[]): DataSource {
  const query = async (config: { name?: string; text: string; values?: unknown[] }) => {
    if (config.name === 'dispatch_due_instances') {
      return client.query(config.text, config.values);
    }
    captured.push({ text: config.text, params: config.values ?? [] });
    return { rows: [] };
  };
  return { driver: { master: { query } } } as unknown as DataSource;
}

/**
 * EXPLAIN ANALYZE of the claim and of the loop's "when is the next one due" query, as the
 * workers run them (their SQL taken from the repository itself), while the workers are still
 * sending; the claim runs in a transaction rolled back, so it takes nothing. The due instances
 * the claim counts first are read for real, so that the claim explained is the one they choose.
 */
async function explainEngineStatements(url: string): Promise<ExplainFigures> {
  const client = new Pool({ connectionString: url, max: 1 });
  client.on('error', () => undefined);
  const captured: CapturedStatement[] = [];
  const recorder = statementRecorder(client, captured);
  const config = { appTimezone: process.env.APP_TIMEZONE ?? 'America/Sao_Paulo' } as AppConfig;
  try {
    await new DispatchClaimRepository(recorder, config).claimDue('bench-explain', 128, 120, []);
    await new DispatchMonitoringRepository(recorder).msUntilNextDue();
    const nextDue = captured.at(-1) as CapturedStatement;
    // No instance due at that moment: the claim of none listed.
    const claim =
      captured.length > 1
        ? captured[0]
        : { text: CLAIM_LISTED, params: ['bench-explain', 128, 120, [], config.appTimezone, []] };
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM campaigns WHERE status = 'ACTIVE' AND next_send_at <= now()`,
    );
    const explain = async (statement: CapturedStatement): Promise<ExplainFigures['claim']> => {
      const figures = { planningMs: [] as number[], executionMs: [] as number[], plan: '' };
      for (let round = 0; round < 3; round += 1) {
        const connection = await client.connect();
        try {
          await connection.query('BEGIN');
          const result = await connection.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
            statement.params,
          );
          const plan = result.rows.map((r) => r['QUERY PLAN']).join('\n');
          figures.planningMs.push(Number(/Planning Time: ([\d.]+)/.exec(plan)?.[1]));
          figures.executionMs.push(Number(/Execution Time: ([\d.]+)/.exec(plan)?.[1]));
          figures.plan = plan;
        } finally {
          await connection.query('ROLLBACK');
          connection.release();
        }
      }
      return figures;
    };
    return {
      dueCampaigns: rows[0].n,
      claim: await explain(claim),
      msUntilNextDue: await explain(nextDue),
    };
  } finally {
    await client.end();
  }
}
