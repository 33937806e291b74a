/**
 * One Cloud API send-rate scenario of bench/cloud-send.bench.ts: Cloud API numbers and one
 * template campaign each, created through the HTTP API against the fake Graph API process;
 * worker processes (src/main.ts, ROLE=worker) send them; what arrives at the fake in a
 * measured window, and what the database and the workers spent on it.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { MetaTemplate } from '../../test/support/fake-graph-api';
import { cpuBetween, round } from '../pacing.bench';
import { requestJson, type BenchCompany } from './api';
import type { BenchContext } from './benchmark';
import type { BenchDatabase } from './database';
import type { FakeGraphApiProcess } from './fake-graph-api-process';
import { analyseArrivals, type ArrivalFigures } from './send-arrivals';
import { databaseUsage, startBenchWorker, type BenchWorker } from './worker-process';

export const CLOUD_TOKEN = 'EAAG-bench-cloud-send-token';
const APP_SECRET = 'bench-cloud-send-app-secret';
const WABA_ID = '402290129340001';
/** The template every campaign sends, APPROVED in the fake's business account. */
export const TEMPLATE: MetaTemplate = {
  name: 'oferta_bench',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [{ type: 'BODY', text: 'Olá {{1}}! Temos uma oferta para você.' }],
};

export interface CloudRunSettings {
  throughputPerSecond: number;
  warmupSeconds: number;
  durationSeconds: number;
  workers: number;
  /** The worker processes' environment (ENCRYPTION_KEY: the API's). */
  workerEnv: Record<string, string>;
}

/** The service's API, as a company that owns the numbers. */
export interface CloudApi {
  baseUrl: string;
  company: BenchCompany;
}

export interface CloudCampaign {
  campaignId: number;
  configId: number;
  phoneNumberId: string;
}

export interface CloudRunFigures extends ArrivalFigures {
  numbers: number;
  loadAverageAtStart: number;
  windowSeconds: number;
  postgresCpuMsPerMessage: number;
  /** Of one CPU, over the window. */
  postgresCpuPercent: number;
  workerCpuPercent: number;
  fakeCpuMsPerMessage: number;
  /**
   * CPU the machine spent on anything but this bench's processes (the database's backends,
   * the workers, the fake, this process), of one CPU: how quiet the machine was.
   */
  othersCpuPercent: number;
  transactionsPerMessage: number;
  /** Per campaign after the run: its status and counters (no contact may fail here). */
  campaigns: Array<{ id: number; status: string; sent: number; failed: number; total: number }>;
  workerLog: Array<{ warn: number; error: number }>;
}

/** Contact k of block b: a São Paulo mobile, unique over the bench (blocks of 200,000). */
export function phoneOf(block: number, k: number): string {
  return `55119${20_000_000 + block * 200_000 + k}`;
}

function headersOf(api: CloudApi): Record<string, string> {
  return { 'X-Access-Token': api.company.token, 'Content-Type': 'application/json' };
}

/**
 * `count` numbers of the fake in one business account with TEMPLATE approved, each a Cloud API
 * configuration created through the API (which asks the fake about the number).
 */
export async function createCloudNumbers(
  api: CloudApi,
  fake: FakeGraphApiProcess,
  count: number,
  throughputPerSecond: number,
  firstIndex: number,
): Promise<Array<{ configId: number; phoneNumberId: string }>> {
  await fake.addTemplate(WABA_ID, TEMPLATE);
  const numbers: Array<{ configId: number; phoneNumberId: string }> = [];
  for (let i = firstIndex; i < firstIndex + count; i += 1) {
    const phoneNumberId = String(106_540_352_250_000 + i);
    await fake.addNumber({
      phoneNumberId,
      businessAccountId: WABA_ID,
      accessToken: CLOUD_TOKEN,
      appSecret: APP_SECRET,
      // The tier caps a day's unique people (TIER_1K: 1,000), a limit other than the
      // throughput: unlimited, so that the window measures the rate and not the cap.
      tier: 'TIER_UNLIMITED',
    });
    const config = await requestJson(`${api.baseUrl}/api/gateway-configs`, {
      method: 'POST',
      headers: headersOf(api),
      body: JSON.stringify({
        provider: 'CLOUD_API',
        name: `Oficial ${i}`,
        url: fake.url,
        phoneNumberId,
        businessAccountId: WABA_ID,
        accessToken: CLOUD_TOKEN,
        appSecret: APP_SECRET,
        throughputPerSecond,
      }),
    });
    numbers.push({ configId: config.id as number, phoneNumberId });
  }
  return numbers;
}

/** A template campaign of `contacts` contacts (block `block`) on a configuration, zero intervals. */
export async function createTemplateCampaign(
  api: CloudApi,
  configId: number,
  contacts: number,
  block: number,
): Promise<number> {
  const created = await requestJson(`${api.baseUrl}/api/campaigns`, {
    method: 'POST',
    headers: headersOf(api),
    body: JSON.stringify({
      name: `Oferta ${block}`,
      gatewayConfigId: configId,
      template: {
        name: TEMPLATE.name,
        language: TEMPLATE.language,
        bodyParameters: ['{PrimeiroNome}'],
      },
      intervalMinSeconds: 0,
      intervalMaxSeconds: 0,
      contacts: Array.from({ length: contacts }, (_v, k) => ({
        phoneNumber: phoneOf(block, k),
        name: `Contato ${k} Silva`,
      })),
    }),
  });
  if (created.status !== 'ACTIVE' || created.totalContacts !== contacts) {
    throw new Error(`campaign ${created.id}: ${created.status}, ${created.totalContacts} contacts`);
  }
  return created.id as number;
}

interface Snapshot {
  postgresCpuMs: Map<number, number>;
  transactions: number;
  workerCpuMs: number;
  fakeCpuMs: number;
  harnessCpuMs: number;
  machineBusyMs: number;
}

/** CPU time every CPU of the machine spent busy so far, in ms (Linux /proc/stat). */
function machineBusyMs(): number {
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = readFileSync(
    '/proc/stat',
    'utf8',
  )
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const ticksPerSecond = 100;
  return ((user + nice + system + irq + softirq + steal) / ticksPerSecond) * 1000;
}

async function snapshot(
  sql: Pool,
  databaseName: string,
  workers: BenchWorker[],
  fake: FakeGraphApiProcess,
): Promise<Snapshot> {
  const database = await databaseUsage(sql, databaseName);
  const usage = process.cpuUsage();
  return {
    ...database,
    workerCpuMs: workers.reduce((sum, w) => sum + w.cpuMs(), 0),
    fakeCpuMs: fake.cpuMs(),
    harnessCpuMs: (usage.user + usage.system) / 1000,
    machineBusyMs: machineBusyMs(),
  };
}

async function campaignsAfter(sql: Pool, ids: number[]): Promise<CloudRunFigures['campaigns']> {
  const { rows } = await sql.query<CloudRunFigures['campaigns'][number]>(
    `SELECT id, status, sent_contacts AS sent, failed_contacts AS failed, total_contacts AS total
       FROM campaigns WHERE id = ANY($1::int[]) ORDER BY id`,
    [ids],
  );
  return rows;
}

/** Pauses the campaigns through the API, so that the next scenario's workers leave them be. */
export async function pauseCampaigns(api: CloudApi, ids: number[]): Promise<void> {
  for (const id of ids) {
    await requestJson(`${api.baseUrl}/api/campaigns/${id}/pause`, {
      method: 'PUT',
      headers: headersOf(api),
    });
  }
}

/**
 * Worker processes send the (ACTIVE) campaigns: after the warm-up, a measured window; then the
 * workers stop and the arrivals at the fake are analysed against the numbers' throughput.
 */
export async function measureCloudSends(
  context: BenchContext,
  sql: Pool,
  database: BenchDatabase,
  fake: FakeGraphApiProcess,
  campaigns: CloudCampaign[],
  settings: CloudRunSettings,
): Promise<CloudRunFigures> {
  await fake.takeArrivals();
  const [loadAverageAtStart] = loadavg();
  const workers = await Promise.all(
    Array.from({ length: settings.workers }, () =>
      startBenchWorker(database.url, settings.workerEnv),
    ),
  );
  let stopped = false;
  const stopAll = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      await Promise.all(workers.map((w) => w.stop()));
    }
  };
  context.onCleanup(stopAll);
  context.log(
    `${campaigns.length} Cloud number(s), ${settings.workers} worker(s): ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s measured`,
  );
  await sleep(settings.warmupSeconds * 1000);
  const before = await snapshot(sql, database.name, workers, fake);
  const start = Date.now();
  await sleep(settings.durationSeconds * 1000);
  const end = Date.now();
  const after = await snapshot(sql, database.name, workers, fake);
  const workerLog = workers.map((w) => w.logged());
  await stopAll();
  const arrivals = await fake.takeArrivals();
  const figures = analyseArrivals(
    campaigns.map(({ phoneNumberId }) => ({
      phoneNumberId,
      times: arrivals[phoneNumberId] ?? [],
    })),
    { start, end },
    settings.throughputPerSecond,
  );
  const windowSeconds = (end - start) / 1000;
  const messages = Math.max(1, figures.sent);
  const postgresCpuMs = cpuBetween(before.postgresCpuMs, after.postgresCpuMs);
  const ownMs =
    postgresCpuMs +
    after.workerCpuMs -
    before.workerCpuMs +
    after.fakeCpuMs -
    before.fakeCpuMs +
    after.harnessCpuMs -
    before.harnessCpuMs;
  return {
    numbers: campaigns.length,
    loadAverageAtStart: round(loadAverageAtStart, 2),
    windowSeconds,
    ...figures,
    postgresCpuMsPerMessage: postgresCpuMs / messages,
    postgresCpuPercent: (postgresCpuMs / (windowSeconds * 1000)) * 100,
    workerCpuPercent: ((after.workerCpuMs - before.workerCpuMs) / (windowSeconds * 1000)) * 100,
    fakeCpuMsPerMessage: (after.fakeCpuMs - before.fakeCpuMs) / messages,
    othersCpuPercent:
      ((after.machineBusyMs - before.machineBusyMs - ownMs) / (windowSeconds * 1000)) * 100,
    transactionsPerMessage: (after.transactions - before.transactions) / messages,
    campaigns: await campaignsAfter(
      sql,
      campaigns.map((c) => c.campaignId),
    ),
    workerLog,
  };
}
