import { loadavg } from 'node:os';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { Pool } from 'pg';
import { DISPATCH_CHANNEL } from '../src/modules/campaigns/application/ports/dispatch-channel';
import {
  registerBenchCompany,
  requestJson,
  waitFor,
  waitForImportJob,
  type BenchCompany,
} from './support/api';
import { indexReady } from './support/database';
import {
  defineBenchmark,
  type BenchContext,
  type BenchmarkOutcome,
  type ResultRow,
} from './support/benchmark';
import {
  MIXED_LOAD_GENERATOR_DESCRIPTION,
  runMixedLoad,
  type LatencyFigures,
  type MixedLoadSummary,
  type MixedLoadTarget,
} from './support/mixed-load';
import { startFakeGatewayProcess, type FakeGatewayProcess } from './support/fake-gateway-process';

/** Targets of the mixed-load issue. */
const LOADED_P99_TARGET_MS = 250;
const LOADED_OVER_QUIET_P99_TARGET = 10;

const DEFAULT_CONNECTIONS = 100;
/**
 * Reads per second offered in the open-loop phases (BENCH_MIXED_RATE overrides): about half
 * of what this machine serves under the load with the connections sending back to back.
 */
const DEFAULT_RATE = 200;
const CAMPAIGNS = 100;
const CONTACTS_PER_CAMPAIGN = 50;
const MIN_PAUSE_S = 0;
const MAX_PAUSE_S = 1;
const RECORDS = 100_000;
const IMPORT_ROWS = 100_000;
/** Matches "Pessoa 1234" and "Pessoa 12340" to "Pessoa 12349" of the seeded records. */
const SEARCH = 'pessoa 1234';
/** monitorEventLoopDelay's sampling interval; Node 20's histogram includes it in every value. */
const EVENT_LOOP_RESOLUTION_MS = 10;
const IMPORT_TIMEOUT_MS = 600_000;

const API_KEY = 'bench-mixed-key';
const instanceName = (c: number): string => `mixed-${c}`;
/** Contact k of campaign c: a valid São Paulo mobile. */
const campaignPhoneOf = (c: number, k: number): string => `55119${10_000_000 + c * 100 + k}`;
/** Row i of a push import: a valid Rio de Janeiro mobile (seed rows, then the loaded import's). */
const importPhoneOf = (i: number): string => `55219${String(i).padStart(8, '0')}`;
const PLANS = ['ouro', 'prata', 'bronze'];

interface Api {
  baseUrl: string;
  company: BenchCompany;
  headers: Record<string, string>;
}

interface EventLoopDelay {
  p50: number;
  p99: number;
  max: number;
  samples: number;
}

interface PhaseFigures {
  /** 'quiet' or 'loaded', and how the reads were offered. */
  phase: string;
  load: MixedLoadSummary;
  eventLoopDelayMs: EventLoopDelay;
  /** Share of one CPU the harness process (the server) used during the window. */
  serverCpuShare: number;
  serverEventLoopUtilization: number;
  loadAverage: { atStart: number; atEnd: number };
}

interface ImportOutcome {
  jobId: number;
  status: string;
  imported: number | null;
  invalidRows: number | null;
  /** From the POST leaving the bench to its 202 (the body read, parsed and stored as a job). */
  acceptedSeconds: number;
  /**
   * From the POST to the first poll that saw the job COMPLETED (polled every 250 ms). The
   * job's own timestamps are not used: they are its transactions' now(), which is when each
   * transaction began.
   */
  completedSeconds: number;
  completedInWindow: boolean;
}

/**
 * Read latency while the service is busy: 100 connections read a mix (campaign list, a
 * campaign's contacts, a records page with a search, /api/auth/me) first on a quiet service,
 * then while 100 campaigns dispatch to the fake gateway and a push import of 100,000 rows
 * runs, in one application instance (ROLE=all). Reports the reads' latency and the server's
 * event-loop delay in each phase.
 *
 * `npm run bench -- mixed-load`.
 */
export default defineBenchmark({
  name: 'mixed-load',
  description:
    'reads (campaigns, contacts, records search, me) on a quiet service, then while 100 campaigns dispatch and a 100,000-row push import runs',
  async run(context) {
    const connections = process.env.BENCH_CONNECTIONS
      ? context.settings.connections
      : DEFAULT_CONNECTIONS;
    const fake = await startFakeGatewayProcess();
    context.onCleanup(() => fake.stop());
    // One instance per campaign: an instance sends one message at a time (its pacing), so
    // 100 campaigns on one number would send at the pace of one.
    for (let c = 0; c < CAMPAIGNS; c += 1) {
      await fake.addInstance(instanceName(c), API_KEY);
    }
    const service = await context.startApp({
      env: { ROLE: 'all', CAMPAIGN_CREATIONS_PER_HOUR: '1000000' },
    });
    const database = await context.database();
    const sql = new Pool({ connectionString: database.url, max: 2 });
    sql.on('error', () => undefined);
    context.onCleanup(() => sql.end());
    const company = await registerBenchCompany(service.baseUrl);
    const api: Api = {
      baseUrl: service.baseUrl,
      company,
      headers: { 'X-Access-Token': company.token, 'Content-Type': 'application/json' },
    };

    const seeded = await seed(context, sql, api, fake.url);
    const targets = readMix(api, seeded);
    // Built before the window: stringifying 100,000 rows would block this process's event
    // loop, the server's, and count as the server's delay.
    const importBody = JSON.stringify({ name: 'Carga', rows: importRows(RECORDS, IMPORT_ROWS) });

    const closed = { targets, connections, durationSeconds: context.settings.durationSeconds };
    const rate = Number(process.env.BENCH_MIXED_RATE ?? DEFAULT_RATE);
    const paced = { ...closed, ratePerSecond: rate };
    context.log(`quiet phase: ${connections} connections, warm-up then measured`);
    if (context.settings.warmupSeconds > 0) {
      await runMixedLoad({ ...closed, durationSeconds: context.settings.warmupSeconds });
    }
    const quietClosed = await measurePhase('quiet, back to back', closed);
    const quietPaced = await measurePhase(`quiet, ${rate}/s`, paced);

    context.log(`loaded phase: ${CAMPAIGNS} campaigns start and a push import is submitted`);
    const loadedPaced = await measureLoadedPhase(
      `loaded, ${rate}/s`,
      sql,
      api,
      fake,
      importBody,
      paced,
      true,
    );
    context.log(
      'loaded phase again, back to back: the campaigns still dispatch, another push import',
    );
    const secondImport = JSON.stringify({
      name: 'Carga 2',
      rows: importRows(RECORDS + IMPORT_ROWS, IMPORT_ROWS),
    });
    const loadedClosed = await measureLoadedPhase(
      'loaded, back to back',
      sql,
      api,
      fake,
      secondImport,
      closed,
      false,
    );
    return outcome(
      { quiet: quietPaced, loaded: loadedPaced },
      { quiet: quietClosed, loaded: loadedClosed },
    );
  },
});

function outcome(
  paced: { quiet: PhaseFigures; loaded: LoadedPhase },
  closed: { quiet: PhaseFigures; loaded: LoadedPhase },
): BenchmarkOutcome {
  const quiet = paced.quiet;
  const loaded = paced.loaded.figures;
  const { messages, imported } = paced.loaded;
  const windowSeconds = loaded.load.durationSeconds;
  return {
    rows: [
      ...phaseRows(paced.quiet),
      ...phaseRows(paced.loaded.figures),
      ...phaseRows(closed.quiet),
      ...phaseRows(closed.loaded.figures),
    ],
    checks: [
      {
        name: `loaded p99 ≤ ${LOADED_P99_TARGET_MS} ms (open loop): ${LOADED_P99_TARGET_MS} − p99 (ms)`,
        value: LOADED_P99_TARGET_MS - loaded.load.latencyMs.p99,
        atLeast: 0,
      },
      {
        name: `loaded p99 ≤ ${LOADED_OVER_QUIET_P99_TARGET} × quiet p99 (open loop): ${LOADED_OVER_QUIET_P99_TARGET} − loaded p99 / quiet p99`,
        value: LOADED_OVER_QUIET_P99_TARGET - loaded.load.latencyMs.p99 / quiet.load.latencyMs.p99,
        atLeast: 0,
      },
      {
        name: 'messages received by the fake gateway in the loaded open-loop window',
        value: messages.count,
      },
      { name: 'messages/s in that window', value: messages.count / windowSeconds },
      {
        name: 'messages/s in the loaded back-to-back window',
        value: closed.loaded.messages.count / closed.loaded.figures.load.durationSeconds,
      },
      {
        name: `push import of ${IMPORT_ROWS} rows: seconds from the POST to its 202`,
        value: imported.acceptedSeconds,
      },
      {
        name: `push import of ${IMPORT_ROWS} rows: seconds from the POST to COMPLETED`,
        value: imported.completedSeconds,
      },
      {
        name: `second push import (back-to-back window): seconds from the POST to COMPLETED`,
        value: closed.loaded.imported.completedSeconds,
      },
    ],
    notes: [
      `Reads: ${quiet.load.connections} connections (BENCH_CONNECTIONS overrides), each cycling through the ${quiet.load.routes.length} routes in turn, offered two ways. Open loop (the checks): ${quiet.load.connections} senders on fixed schedules, ${Math.round(quiet.load.requestsPerSecond)} requests/s in all (BENCH_MIXED_RATE), each request's latency counted from its scheduled time. Back to back (as the issue measured it): each connection sends its next request as soon as the last is answered, a closed loop, so the server runs saturated in both phases and latency is mostly the wait in its queue (about connections / requests per second). ${MIXED_LOAD_GENERATOR_DESCRIPTION} (open loop: node:http with a keep-alive agent). Latency percentiles are exact, over every response of the window. The quiet phase follows a warm-up of BENCH_WARMUP s; the loaded phase has none (the server is warm) so that its window starts with the load.`,
      `Routes: ${quiet.load.routes.map((route) => `${route.name} = ${route.path}`).join('; ')}.`,
      `Seed (before the phases): a push import of ${RECORDS} generic rows (one database, its search index built), ${CAMPAIGNS} campaigns of ${CONTACTS_PER_CAMPAIGN} contacts created through the API scheduled for 2099, each on its own instance of the fake gateway, pauses ${MIN_PAUSE_S}–${MAX_PAUSE_S} s; then VACUUM ANALYZE, so that autovacuum does not land in the quiet window.`,
      `Loaded phases: the open-loop one first; when the load generator's connections open, the bench moves the ${CAMPAIGNS} campaigns' scheduled_for to now() in SQL (the API has no "start now" for a scheduled campaign) and notifies the dispatch loop, whose own scheduled start makes them ACTIVE, as when ${CAMPAIGNS} campaigns come due in the same minute; and it posts one async push import of ${IMPORT_ROWS} generic rows (a new database). The back-to-back window follows at once, while the campaigns still dispatch, with a second import of ${IMPORT_ROWS} rows. Messages: sends that reached the fake gateway between the window's start and end.`,
      `Import: job ${imported.jobId} ${imported.status}, ${imported.imported ?? '?'} rows imported, ${imported.invalidRows ?? '?'} invalid; 202 ${imported.acceptedSeconds.toFixed(2)} s after the POST, COMPLETED seen ${imported.completedSeconds.toFixed(2)} s after it (polled every 250 ms from the 202 on), ${imported.completedInWindow ? 'within' : 'after'} the loaded window.`,
      `Event-loop delay: perf_hooks.monitorEventLoopDelay({ resolution: ${EVENT_LOOP_RESOLUTION_MS} }) in the harness process (the application, the fake gateway and the import's client), enabled from the client's "started" to its "finished"; figures are the histogram's less the ${EVENT_LOOP_RESOLUTION_MS} ms sampling interval, which Node's histogram includes (an idle loop reads about ${EVENT_LOOP_RESOLUTION_MS}.1 ms). CPU %: process.cpuUsage of the harness process over the window (100 % = one CPU).`,
      `Loaded window: the first message reached the fake gateway ${messages.firstAfterMs ?? '(none)'} ms after its start.`,
      `Load average (1 min) at start → end of the windows: quiet ${quiet.loadAverage.atStart.toFixed(2)} → ${quiet.loadAverage.atEnd.toFixed(2)}, loaded ${loaded.loadAverage.atStart.toFixed(2)} → ${loaded.loadAverage.atEnd.toFixed(2)}.`,
      'The application, the fake gateway and the bench itself share the harness process; PostgreSQL and the load generator run beside it on the same CPUs.',
    ],
    details: { quiet, loaded, messages, import: imported },
  };
}

function phaseRows(figures: PhaseFigures): ResultRow[] {
  const { load } = figures;
  const latency = (l: LatencyFigures): ResultRow => ({
    'p50 ms': l.p50,
    'p90 ms': l.p90,
    'p99 ms': l.p99,
    'max ms': l.max,
  });
  const overall: ResultRow = {
    phase: figures.phase,
    route: 'all reads',
    'req/s': load.requestsPerSecond,
    ...latency(load.latencyMs),
    'non-2xx': load.non2xx,
    errors: load.errors + load.timeouts,
    'loop delay p50 ms': figures.eventLoopDelayMs.p50,
    'loop delay p99 ms': figures.eventLoopDelayMs.p99,
    'loop delay max ms': figures.eventLoopDelayMs.max,
    'server CPU %': Math.round(figures.serverCpuShare * 100),
    ELU: figures.serverEventLoopUtilization,
  };
  return [
    overall,
    ...load.routes.map((route) => ({
      phase: figures.phase,
      route: route.name,
      'req/s': route.requestsPerSecond,
      ...latency(route.latencyMs),
      'non-2xx': route.non2xx,
    })),
  ];
}

interface LoadedPhase {
  figures: PhaseFigures;
  messages: MessagesInWindow;
  imported: ImportOutcome;
}

interface MessagesInWindow {
  count: number;
  /** From the window's start to the first send at the fake gateway. */
  firstAfterMs: number | null;
}

/**
 * The read mix again; when its connections open, the campaigns come due and the push import
 * is posted, then followed to COMPLETED (which may come after the window). Both are awaited
 * only after the window, so that their failures are reported rather than left unhandled.
 */
async function measureLoadedPhase(
  phase: string,
  sql: Pool,
  api: Api,
  fake: FakeGatewayProcess,
  importBody: string,
  plan: Parameters<typeof runMixedLoad>[0],
  startCampaigns: boolean,
): Promise<LoadedPhase> {
  const sentBefore = (await fake.sentTimes()).length;
  let importing: Promise<Omit<ImportOutcome, 'completedInWindow'>> | undefined;
  let campaignsStarted: Promise<void> | undefined;
  const figures = await measurePhase(phase, plan, () => {
    importing = importAndWait(api, importBody);
    campaignsStarted = startCampaigns
      ? startScheduledCampaigns(sql, api.company.id)
      : Promise.resolve();
    importing.catch(() => undefined);
    campaignsStarted.catch(() => undefined);
  });
  if (!importing || !campaignsStarted) {
    throw new Error('the loaded phase never started');
  }
  await campaignsStarted;
  const { startedAt, finishedAt } = figures.load;
  const inWindow = (await fake.sentTimes())
    .slice(sentBefore)
    .filter((at) => at >= startedAt && at <= finishedAt);
  const imported = await importing;
  return {
    figures,
    messages: {
      count: inWindow.length,
      firstAfterMs: inWindow.length > 0 ? Math.min(...inWindow) - startedAt : null,
    },
    imported: {
      ...imported,
      completedInWindow: startedAt + imported.completedSeconds * 1000 <= finishedAt,
    },
  };
}

/** Posts the async import and follows its job to COMPLETED, timing both from the POST. */
async function importAndWait(
  api: Api,
  body: string,
): Promise<Omit<ImportOutcome, 'completedInWindow'>> {
  const posted = performance.now();
  const jobId = await submitImport(api, body);
  const acceptedSeconds = (performance.now() - posted) / 1000;
  const job = await waitForImportJob(api.baseUrl, api.company, jobId, {
    timeoutMs: IMPORT_TIMEOUT_MS,
    intervalMs: 250,
  });
  return {
    jobId,
    status: job.status as string,
    imported: job.imported as number | null,
    invalidRows: job.invalidRows as number | null,
    acceptedSeconds,
    completedSeconds: (performance.now() - posted) / 1000,
  };
}

/**
 * One measured window of the read mix, with the server's event-loop delay, CPU and event-loop
 * utilization taken from the moment the child's connections open to the moment they stop.
 */
async function measurePhase(
  phase: PhaseFigures['phase'],
  plan: Parameters<typeof runMixedLoad>[0],
  onStarted?: () => void,
): Promise<PhaseFigures> {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  let cpuBefore = process.cpuUsage();
  let loopBefore = performance.eventLoopUtilization();
  let startedAt = performance.now();
  let cpu = { user: 0, system: 0 };
  let loop = performance.eventLoopUtilization(loopBefore);
  let seconds = 0;
  const loadAtStart = loadavg()[0];
  const load = await runMixedLoad(plan, {
    onStarted: () => {
      histogram.enable();
      cpuBefore = process.cpuUsage();
      loopBefore = performance.eventLoopUtilization();
      startedAt = performance.now();
      onStarted?.();
    },
    onFinished: () => {
      histogram.disable();
      cpu = process.cpuUsage(cpuBefore);
      loop = performance.eventLoopUtilization(loopBefore);
      seconds = (performance.now() - startedAt) / 1000;
    },
  });
  return {
    phase,
    load,
    eventLoopDelayMs: delayFigures(histogram),
    serverCpuShare: (cpu.user + cpu.system) / 1e6 / Math.max(seconds, 1e-3),
    serverEventLoopUtilization: loop.utilization,
    loadAverage: { atStart: loadAtStart, atEnd: loadavg()[0] },
  };
}

function delayFigures(histogram: IntervalHistogram): EventLoopDelay {
  const beyondTimer = (ns: number): number => Math.max(0, ns / 1e6 - EVENT_LOOP_RESOLUTION_MS);
  return {
    p50: beyondTimer(histogram.percentile(50)),
    p99: beyondTimer(histogram.percentile(99)),
    max: beyondTimer(histogram.max),
    samples: histogram.count,
  };
}

/** The four reads, all as the seeded company. */
function readMix(api: Api, seeded: Seeded): MixedLoadTarget[] {
  const headers = { 'X-Access-Token': api.company.token };
  const search = encodeURIComponent(SEARCH);
  return [
    {
      name: 'campaigns',
      url: `${api.baseUrl}/api/campaigns?page=0&size=20`,
      headers,
    },
    {
      name: 'contacts',
      url: `${api.baseUrl}/api/campaigns/${seeded.campaignId}/contacts?page=0&size=50`,
      headers,
    },
    {
      name: 'records search',
      url: `${api.baseUrl}/api/user-databases/${seeded.databaseId}/records?search=${search}&size=25`,
      headers,
    },
    { name: 'me', url: `${api.baseUrl}/api/auth/me`, headers },
  ];
}

interface Seeded {
  databaseId: number;
  /** A campaign whose contacts the mix reads. */
  campaignId: number;
}

async function seed(
  context: BenchContext,
  sql: Pool,
  api: Api,
  gatewayUrl: string,
): Promise<Seeded> {
  const started = performance.now();
  context.log(`seed: push import of ${RECORDS} rows`);
  const jobId = await submitImport(
    api,
    JSON.stringify({ name: 'Clientes', rows: importRows(0, RECORDS) }),
  );
  const job = await waitForImportJob(api.baseUrl, api.company, jobId, {
    timeoutMs: IMPORT_TIMEOUT_MS,
  });
  const databaseId = job.databaseId as number;
  // Search uses a per-database index the index worker builds after the import: read once it is there.
  await waitFor(
    `udr_search_${databaseId}`,
    () => indexReady(sql, `udr_search_${databaseId}`),
    IMPORT_TIMEOUT_MS,
  );
  context.log(`seed: ${CAMPAIGNS} campaigns of ${CONTACTS_PER_CAMPAIGN} contacts, scheduled`);
  const campaignIds: number[] = [];
  for (let c = 0; c < CAMPAIGNS; c += 1) {
    campaignIds.push(await createScheduledCampaign(api, gatewayUrl, c));
  }
  await sql.query(
    'VACUUM ANALYZE user_database_records, campaigns, campaign_contacts, outbox_events',
  );
  context.log(`seed: done in ${Math.round(performance.now() - started)} ms`);
  return { databaseId, campaignId: campaignIds[0] };
}

async function createScheduledCampaign(api: Api, gatewayUrl: string, c: number): Promise<number> {
  const created = await requestJson(`${api.baseUrl}/api/campaigns`, {
    method: 'POST',
    headers: api.headers,
    body: JSON.stringify({
      name: `Carga ${c}`,
      gatewayUrl,
      gatewayApiKey: API_KEY,
      gatewayInstance: instanceName(c),
      message: 'Olá {PrimeiroNome}!',
      intervalMinSeconds: MIN_PAUSE_S,
      intervalMaxSeconds: MAX_PAUSE_S,
      // Far ahead: created now (list and contacts to read), started by the loaded phase.
      scheduledFor: '2099-01-01T09:00:00',
      contacts: Array.from({ length: CONTACTS_PER_CAMPAIGN }, (_v, k) => ({
        phoneNumber: campaignPhoneOf(c, k),
        name: `Contato ${c}-${k}`,
      })),
    }),
  });
  return created.id as number;
}

/**
 * The scheduled campaigns come due now: the dispatch loop's own scheduled start (up to 100 a
 * pass) makes them ACTIVE. The notification wakes the loop instead of waiting for its next
 * one-second pass.
 */
async function startScheduledCampaigns(sql: Pool, companyId: number): Promise<void> {
  await sql.query(
    `UPDATE campaigns SET scheduled_for = now() WHERE company_id = $1 AND status = 'SCHEDULED'`,
    [companyId],
  );
  await sql.query('SELECT pg_notify($1, $2)', [DISPATCH_CHANNEL, '']);
}

function importRows(
  offset: number,
  count: number,
): Array<{ telefone: string; nome: string; plano: string }> {
  return Array.from({ length: count }, (_v, n) => {
    const i = offset + n;
    return { telefone: importPhoneOf(i), nome: `Pessoa ${i}`, plano: PLANS[i % PLANS.length] };
  });
}

/** POST …/imports/contacts/generic?async=true; resolves with the job's id once accepted (202). */
async function submitImport(api: Api, body: string): Promise<number> {
  const accepted = await requestJson(
    `${api.baseUrl}/api/companies/${api.company.id}/imports/contacts/generic?async=true`,
    { method: 'POST', headers: api.headers, body },
  );
  return accepted.jobId as number;
}
