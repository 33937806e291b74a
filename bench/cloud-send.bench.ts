import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import {
  API_KEY,
  ENCRYPTION_KEY,
  installTakeLog,
  instanceName,
  measureRun,
  round,
  seed,
  settingsFrom as pacingSettingsFrom,
  startApiOnly,
  type RunFigures,
} from './pacing.bench';
import { registerBenchCompany, requestJson, type BenchCompany } from './support/api';
import {
  defineBenchmark,
  type BenchContext,
  type Check,
  type ResultRow,
} from './support/benchmark';
import type { BenchDatabase } from './support/database';
import {
  createCloudNumbers,
  createTemplateCampaign,
  measureCloudSends,
  pauseCampaigns,
  type CloudApi,
  type CloudRunFigures,
  type CloudRunSettings,
} from './support/cloud-send-scenario';
import {
  startFakeGraphApiProcess,
  type FakeGraphApiProcess,
} from './support/fake-graph-api-process';

/** Issue 26's targets. */
const MANY_NUMBERS_TARGET_PER_SECOND = 1_000;
const POSTGRES_CPU_MS_PER_MESSAGE_TARGET = 0.5;
/** Over a measured window a number paced at exactly its throughput shows a hair less. */
const SUSTAINED_SHARE = 0.99;
const SCENARIOS = ['A', 'B', 'C'] as const;
type Scenario = (typeof SCENARIOS)[number];

interface CloudSendSettings {
  scenarios: Scenario[];
  throughputPerSecond: number;
  oneNumberContacts: number;
  numbers: number;
  contactsPerNumber: number;
  warmupSeconds: number;
  durationSeconds: number;
  workers: number;
  evolution: {
    instances: number;
    campaigns: number;
    warmupSeconds: number;
    durationSeconds: number;
  };
}

function readInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name}=${env[name]}: expected an integer ≥ ${min}`);
  }
  return value;
}

/**
 * BENCH_CLOUD_SCENARIOS ("A,B,C"), BENCH_CLOUD_THROUGHPUT (80 messages/s a number),
 * BENCH_CLOUD_CONTACTS (100,000: scenario A's campaign), BENCH_CLOUD_NUMBERS (20) and
 * BENCH_CLOUD_CONTACTS_PER_NUMBER (scenario B: enough for the run at the throughput, at least
 * 5,000), BENCH_CLOUD_WARMUP (20 s), BENCH_CLOUD_DURATION (60 s), BENCH_CLOUD_WORKERS (1);
 * scenario C: BENCH_CLOUD_EVOLUTION_INSTANCES (1,000), _CAMPAIGNS (2,000), _WARMUP (20 s),
 * _DURATION (30 s).
 */
function settingsFrom(env: NodeJS.ProcessEnv): CloudSendSettings {
  const scenarios = (env.BENCH_CLOUD_SCENARIOS ?? 'A,B,C').split(',').map((s) => s.trim());
  if (scenarios.some((s) => !(SCENARIOS as readonly string[]).includes(s))) {
    throw new Error(`BENCH_CLOUD_SCENARIOS=${env.BENCH_CLOUD_SCENARIOS}: expected e.g. A,B,C`);
  }
  const throughputPerSecond = readInteger(env, 'BENCH_CLOUD_THROUGHPUT', 80, 1);
  const warmupSeconds = readInteger(env, 'BENCH_CLOUD_WARMUP', 20, 0);
  const durationSeconds = readInteger(env, 'BENCH_CLOUD_DURATION', 60, 1);
  // A number that keeps its throughput must not run out of contacts before the window ends.
  const enough = Math.ceil(throughputPerSecond * (warmupSeconds + durationSeconds) * 1.25);
  const settings: CloudSendSettings = {
    scenarios: scenarios as Scenario[],
    throughputPerSecond,
    oneNumberContacts: readInteger(env, 'BENCH_CLOUD_CONTACTS', 100_000, 1),
    numbers: readInteger(env, 'BENCH_CLOUD_NUMBERS', 20, 1),
    contactsPerNumber: readInteger(
      env,
      'BENCH_CLOUD_CONTACTS_PER_NUMBER',
      Math.max(5_000, enough),
      1,
    ),
    warmupSeconds,
    durationSeconds,
    workers: readInteger(env, 'BENCH_CLOUD_WORKERS', 1, 1),
    evolution: {
      instances: readInteger(env, 'BENCH_CLOUD_EVOLUTION_INSTANCES', 1_000, 1),
      campaigns: readInteger(env, 'BENCH_CLOUD_EVOLUTION_CAMPAIGNS', 2_000, 1),
      warmupSeconds: readInteger(env, 'BENCH_CLOUD_EVOLUTION_WARMUP', 20, 0),
      durationSeconds: readInteger(env, 'BENCH_CLOUD_EVOLUTION_DURATION', 30, 1),
    },
  };
  if (settings.oneNumberContacts > 200_000 || settings.contactsPerNumber > 200_000) {
    throw new Error('at most 200,000 contacts a campaign (phone number blocks)');
  }
  if (settings.numbers > 299) {
    throw new Error('at most 299 numbers (phone number blocks)');
  }
  return settings;
}

/** What the scenarios share: the API, the database and the fake Graph API process. */
interface Bench {
  context: BenchContext;
  api: CloudApi;
  sql: Pool;
  database: BenchDatabase;
  fake: FakeGraphApiProcess;
  settings: CloudSendSettings;
  run: CloudRunSettings;
}

/**
 * Issue 26: WhatsApp Cloud API numbers sending approved templates with zero intervals, through
 * the dispatch engine in worker processes (src/main.ts, ROLE=worker), to the fake Graph API in
 * a process of its own. A: one 100,000-contact campaign on one number of throughput 80/s; B:
 * 20 numbers, one campaign each, all at once; C: the pacing probe on Evolution instances in the
 * same run (bench/pacing.bench.ts), for its rate, lateness and PostgreSQL CPU per message.
 *
 * `npm run bench -- cloud-send`. docs/PERFORMANCE.md, "The Cloud API's send rate".
 */
export default defineBenchmark({
  name: 'cloud-send',
  description:
    "the Cloud API's send rate: one number at its throughput, 20 numbers at once, beside Evolution",
  async run(context) {
    const settings = settingsFrom(process.env);
    const fake = await startFakeGraphApiProcess();
    context.onCleanup(() => fake.stop());
    const { service, database, sql, company } = await startApiOnly(context);
    const bench: Bench = {
      context,
      api: { baseUrl: service.baseUrl, company },
      sql,
      database,
      fake,
      settings,
      run: {
        throughputPerSecond: settings.throughputPerSecond,
        warmupSeconds: settings.warmupSeconds,
        durationSeconds: settings.durationSeconds,
        workers: settings.workers,
        workerEnv: { ENCRYPTION_KEY },
      },
    };
    const has = (s: Scenario): boolean => settings.scenarios.includes(s);
    const oneNumber = has('A') ? await runOneNumber(bench) : null;
    const manyNumbers = has('B') ? await runManyNumbers(bench) : null;
    const evolution = has('C') ? await runEvolution(bench) : null;
    return {
      rows: [
        ...(oneNumber ? [cloudRow('A: 1 Cloud number', oneNumber)] : []),
        ...(manyNumbers ? [cloudRow(`B: ${manyNumbers.numbers} Cloud numbers`, manyNumbers)] : []),
        ...(evolution ? [evolutionRow(settings, evolution)] : []),
      ],
      checks: [
        ...(oneNumber ? oneNumberChecks(settings, oneNumber) : []),
        ...(manyNumbers ? manyNumbersChecks(settings, manyNumbers) : []),
      ],
      notes: notesOf(settings),
      details: { settings, oneNumber, manyNumbers, evolution: evolution && summaryOf(evolution) },
    };
  },
});

async function runOneNumber(bench: Bench): Promise<CloudRunFigures> {
  const { api, fake, settings } = bench;
  const [number] = await createCloudNumbers(api, fake, 1, settings.throughputPerSecond, 0);
  const started = performance.now();
  const campaignId = await createTemplateCampaign(
    api,
    number.configId,
    settings.oneNumberContacts,
    0,
  );
  bench.context.log(
    `A: a template campaign of ${settings.oneNumberContacts} contacts created in ${Math.round(performance.now() - started)} ms`,
  );
  return measureThenPause(bench, [{ campaignId, ...number }]);
}

async function runManyNumbers(bench: Bench): Promise<CloudRunFigures> {
  const { api, fake, settings } = bench;
  const numbers = await createCloudNumbers(
    api,
    fake,
    settings.numbers,
    settings.throughputPerSecond,
    1,
  );
  const started = performance.now();
  const campaigns = [];
  for (const [i, number] of numbers.entries()) {
    const campaignId = await createTemplateCampaign(
      api,
      number.configId,
      settings.contactsPerNumber,
      i + 1,
    );
    campaigns.push({ campaignId, ...number });
  }
  bench.context.log(
    `B: ${numbers.length} template campaigns of ${settings.contactsPerNumber} contacts created in ${Math.round(performance.now() - started)} ms`,
  );
  return measureThenPause(bench, campaigns);
}

/** The campaigns' sends measured (their statistics fresh first), then the campaigns paused. */
async function measureThenPause(
  bench: Bench,
  campaigns: Parameters<typeof measureCloudSends>[4],
): Promise<CloudRunFigures> {
  await bench.sql.query('ANALYZE campaigns, campaign_contacts');
  const figures = await measureCloudSends(
    bench.context,
    bench.sql,
    bench.database,
    bench.fake,
    campaigns,
    bench.run,
  );
  await pauseCampaigns(
    bench.api,
    campaigns.map((c) => c.campaignId),
  );
  return figures;
}

/**
 * The pacing probe (bench/pacing.bench.ts) with a shorter setting: Evolution instances of the
 * fake Evolution API in this process, 1–3 s pauses, the same worker count as the Cloud runs.
 * Its take log and its campaigns are removed afterwards, so that a benchmark after this one in
 * the same run meets neither.
 */
async function runEvolution(bench: Bench): Promise<RunFigures> {
  const { context, sql, settings } = bench;
  const pacing = pacingSettingsFrom({
    BENCH_PACING_INSTANCES: String(settings.evolution.instances),
    BENCH_PACING_CAMPAIGNS: String(settings.evolution.campaigns),
    BENCH_PACING_WARMUP: String(settings.evolution.warmupSeconds),
    BENCH_PACING_DURATION: String(settings.evolution.durationSeconds),
    BENCH_PACING_WORKERS: String(settings.workers),
  });
  const evolution = new FakeEvolutionApi();
  await evolution.start();
  context.onCleanup(() => evolution.stop());
  for (let i = 0; i < pacing.instances; i += 1) {
    evolution.addInstance(instanceName(i), { apiKey: API_KEY, state: 'open' });
  }
  const company = await registerBenchCompany(bench.api.baseUrl);
  context.onCleanup(() => removeEvolutionProbe(bench, company));
  await seed(context, sql, bench.api.baseUrl, company, evolution.url, pacing);
  await installTakeLog(sql);
  return measureRun(context, sql, bench.database, evolution, settings.workers, pacing);
}

async function removeEvolutionProbe(bench: Bench, company: BenchCompany): Promise<void> {
  await bench.sql.query(
    `DROP TRIGGER IF EXISTS bench_pacing_note_take ON campaign_contacts;
     DROP FUNCTION IF EXISTS bench_pacing_note_take();
     DROP TABLE IF EXISTS bench_pacing_takes`,
  );
  const { rows } = await bench.sql.query<{ id: number }>(
    `SELECT id FROM campaigns WHERE company_id = $1 AND status = 'ACTIVE'`,
    [company.id],
  );
  const ids = rows.map((r) => r.id);
  const cancelOne = async (): Promise<void> => {
    for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
      await requestJson(`${bench.api.baseUrl}/api/campaigns/${id}/cancel`, {
        method: 'PUT',
        headers: { 'X-Access-Token': company.token },
      });
    }
  };
  await Promise.all(Array.from({ length: 4 }, cancelOne));
}

function cloudRow(scenario: string, run: CloudRunFigures): ResultRow {
  return {
    scenario,
    'load at start': run.loadAverageAtStart,
    'others CPU %': Math.round(run.othersCpuPercent),
    'msg/s': round(run.perSecond, 1),
    'msg/s per number': round(run.perSecond / run.numbers, 1),
    'msg/s first / last 10 s': `${run.perSecondBy10s[0]} / ${run.perSecondBy10s[run.perSecondBy10s.length - 1]}`,
    'max in 1 s (a number): run / window': `${run.maxInOneSecond} / ${run.maxInOneSecondInWindow}`,
    'late p50 / p99 / max ms': latenessCell(run.lateness),
    'worst number p99 ms': Math.round(run.worstNumberP99),
    'PG CPU ms/msg': round(run.postgresCpuMsPerMessage, 3),
    'PG CPU %': Math.round(run.postgresCpuPercent),
    'worker CPU %': Math.round(run.workerCpuPercent),
    'fake Meta CPU ms/msg': round(run.fakeCpuMsPerMessage, 2),
    'xacts/msg': round(run.transactionsPerMessage, 2),
    'gap p50 ms': run.gapMs.p50,
    'gaps ≥ 20 ms': run.gapsOver20ms,
  };
}

function evolutionRow(settings: CloudSendSettings, run: RunFigures): ResultRow {
  const { instances, campaigns } = settings.evolution;
  return {
    scenario: `C: Evolution, ${instances} instances, ${campaigns} campaigns, 1–3 s pauses`,
    'load at start': run.loadAverageAtStart,
    'msg/s': round(run.sentPerSecond, 1),
    'msg/s per number': round(run.sentPerSecond / instances, 2),
    'late p50 / p99 / max ms': latenessCell(run.lateness),
    'PG CPU ms/msg': round(run.postgresCpuMsPerMessage, 3),
    'worker CPU %': Math.round(run.workerCpuPercent),
    'xacts/msg': round(run.transactionsPerMessage, 2),
  };
}

function latenessCell(lateness: { p50: number; p99: number; max: number }): string {
  return [lateness.p50, lateness.p99, lateness.max].map((ms) => Math.round(ms)).join(' / ');
}

function unsettledContacts(run: CloudRunFigures): number {
  return run.campaigns.reduce((sum, c) => sum + c.failed, 0);
}

function oneNumberChecks(settings: CloudSendSettings, run: CloudRunFigures): Check[] {
  const throughput = settings.throughputPerSecond;
  return [
    {
      name: `A: messages/s on one number (target ${throughput}, ≥ ${SUSTAINED_SHARE * 100} % of it over the window)`,
      value: run.perSecond,
      atLeast: throughput * SUSTAINED_SHARE,
    },
    {
      name: `A: Meta's limit: ${throughput} − the most messages in any 1 s`,
      value: throughput - run.maxInOneSecond,
      atLeast: 0,
    },
    { name: 'A: contacts failed (0 − count)', value: -unsettledContacts(run), atLeast: 0 },
  ];
}

function manyNumbersChecks(settings: CloudSendSettings, run: CloudRunFigures): Check[] {
  const throughput = settings.throughputPerSecond;
  return [
    {
      name: `B: messages/s over ${run.numbers} numbers (target ${MANY_NUMBERS_TARGET_PER_SECOND})`,
      value: run.perSecond,
      atLeast: MANY_NUMBERS_TARGET_PER_SECOND,
    },
    {
      name: `B: PostgreSQL CPU per message: ${POSTGRES_CPU_MS_PER_MESSAGE_TARGET} ms − figure`,
      value: POSTGRES_CPU_MS_PER_MESSAGE_TARGET - run.postgresCpuMsPerMessage,
      atLeast: 0,
    },
    {
      name: `B: Meta's limit: ${throughput} − the most messages any number got in 1 s`,
      value: throughput - run.maxInOneSecond,
      atLeast: 0,
    },
    { name: 'B: contacts failed (0 − count)', value: -unsettledContacts(run), atLeast: 0 },
  ];
}

/** Scenario C's figures without its EXPLAIN plans (kept short in the JSON). */
function summaryOf(run: RunFigures): Omit<RunFigures, 'explain'> {
  const { explain: _explain, ...rest } = run;
  return rest;
}

function notesOf(settings: CloudSendSettings): string[] {
  const { throughputPerSecond: t, warmupSeconds, durationSeconds, workers } = settings;
  return [
    `A: one Cloud API configuration (throughputPerSecond ${t}) and one template campaign of ${settings.oneNumberContacts} contacts; B: ${settings.numbers} configurations, one campaign of ${settings.contactsPerNumber} contacts each, all sending at once. Everything created through the HTTP API (POST /api/gateway-configs, numbers of tier TIER_UNLIMITED so that no day's cap stops them, POST /api/campaigns with template {name, language, bodyParameters: ["{PrimeiroNome}"]}, intervalMinSeconds 0 and intervalMaxSeconds 0); the template is APPROVED in the fake's business account.`,
    `${workers} worker process(es) (src/main.ts, ROLE=worker) started after the campaigns exist; ${warmupSeconds} s of warm-up, then ${durationSeconds} s measured; then the workers stop and the campaigns are paused through the API before the next scenario.`,
    'The fake Graph API (test/support/fake-graph-api) runs in a child process (bench/support/fake-graph-api-process.ts) and stamps each accepted message when it answers it; msg/s = arrivals in the window / its length.',
    `Max in 1 s: the most arrivals of one number in any 1-second span of the whole run (warm-up included; then of the measured window alone), against Meta's ${t}/s. Lateness (Cloud): message k of a number in the window is due at the window's first arrival + k/${t} s; lateness = arrival − due (negative: ahead of an exact ${t}/s, i.e. faster than Meta allows); pooled over numbers, and the worst number's p99.`,
    'Lateness (C, Evolution): arrival − the slot its pauses allowed (see "Pacing accuracy"): not the same measure, both say how far behind its own schedule a number sends.',
    "PG CPU: utime + stime of the bench database's backends over the window / messages; PG CPU % and worker CPU % of one CPU; others CPU %: the machine's busy time (/proc/stat) less this bench's processes (the database's backends, workers, fake, harness), of one CPU: how quiet the machine was (the load average at a scenario's start also counts the bench's own previous scenario); fake Meta CPU: the fake Graph API process's, which shares the two CPUs with the service; xacts/msg: commits + rollbacks per message. Gap p50: the usual time between two messages of one number (sent one at a time, that is one whole send); gaps ≥ 20 ms: where a number's stream stopped (a turn's end and the next claim).",
    'BENCH_CLOUD_SCENARIOS, _THROUGHPUT, _CONTACTS, _NUMBERS, _CONTACTS_PER_NUMBER, _WARMUP, _DURATION, _WORKERS and BENCH_CLOUD_EVOLUTION_INSTANCES, _CAMPAIGNS, _WARMUP, _DURATION change the run.',
  ];
}
