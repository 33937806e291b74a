import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  registerBenchCompany,
  requestJson,
  waitForImportJob,
  type BenchCompany,
} from './support/api';
import { defineBenchmark, type Check, type ResultRow } from './support/benchmark';
import { topSelfTime } from './support/cpu-profile';
import { scrapeEventLoopDelay } from './support/event-loop-scrape';
import { cpuMsOf, memoryOf, startServiceProcess } from './support/service-process';

/** Targets of the issue "keep the API quick": 1,000,000 pushed rows at 35,000 rows/s, under 500 MB. */
const ROWS_PER_SECOND_TARGET = 35_000;
const PEAK_RSS_TARGET_MB = 500;

const TOTAL_ROWS = Number(process.env.BENCH_PUSH_ROWS ?? 1_000_000);
const ROWS_PER_REQUEST = 50_000;
const PLANS = ['ouro', 'prata', 'bronze'];
const CITIES = ['São Paulo', 'Curitiba', 'Recife', 'Belo Horizonte', 'Porto Alegre'];

/** One request's generic rows, as a client would send them: formatted phones, a few text columns. */
function requestBody(databaseId: number, request: number): string {
  const rows = Array.from({ length: ROWS_PER_REQUEST }, (_v, i) => {
    const n = request * ROWS_PER_REQUEST + i;
    return {
      telefone: `+55 (21) 9${String(n)
        .padStart(8, '0')
        .replace(/^(\d{4})/, '$1-')}`,
      nome: `Contato ${n}`,
      plano: PLANS[n % PLANS.length],
      cidade: CITIES[n % CITIES.length],
    };
  });
  return JSON.stringify({ databaseId, rows });
}

/** The database the rows are appended to, created by a one-row synchronous import (not timed). */
async function createTarget(baseUrl: string, company: BenchCompany): Promise<number> {
  const created = await requestJson(
    `${baseUrl}/api/companies/${company.id}/imports/contacts/generic`,
    {
      method: 'POST',
      headers: { 'X-Access-Token': company.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Push bench',
        rows: [{ telefone: '5511900000000', nome: 'x', plano: 'x', cidade: 'x' }],
      }),
    },
  );
  return created.id as number;
}

async function pushAll(
  baseUrl: string,
  company: BenchCompany,
  databaseId: number,
): Promise<{ seconds: number; imported: number; acceptSeconds: number }> {
  const headers = { 'X-Access-Token': company.token, 'Content-Type': 'application/json' };
  const url = `${baseUrl}/api/companies/${company.id}/imports/contacts/generic?async=true`;
  const bodies = Array.from({ length: TOTAL_ROWS / ROWS_PER_REQUEST }, (_v, i) =>
    requestBody(databaseId, i),
  );
  const started = performance.now();
  const jobIds: number[] = [];
  for (const body of bodies) {
    const accepted = await requestJson(url, { method: 'POST', headers, body });
    jobIds.push(accepted.jobId as number);
  }
  const acceptSeconds = (performance.now() - started) / 1000;
  let imported = 0;
  for (const id of jobIds) {
    imported += (await waitForImportJob(baseUrl, company, id)).imported as number;
  }
  return { seconds: (performance.now() - started) / 1000, imported, acceptSeconds };
}

export default defineBenchmark({
  name: 'push-import',
  description:
    'async push import of 1,000,000 generic rows as 20 requests of 50,000 into one database: rows/s from the first request to the last job COMPLETED, peak RSS and event-loop delay of the service process (BENCH_CPU_PROFILE=1 adds its CPU profile)',
  async run(context) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-push-import-'));
    context.onCleanup(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const database = await context.database();
    const profileDir = process.env.BENCH_CPU_PROFILE === '1' ? join(dir, 'profile') : undefined;
    const service = await startServiceProcess(dir, database.url, {
      role: 'all',
      cpuProfileDir: profileDir,
    });
    context.onCleanup(() => service.stop());
    const company = await registerBenchCompany(service.baseUrl);
    const databaseId = await createTarget(service.baseUrl, company);
    const base = memoryOf(service.pid);
    const cpuBefore = cpuMsOf(service.pid);
    await scrapeEventLoopDelay(service.baseUrl);

    context.log(`pushing ${TOTAL_ROWS} rows as ${TOTAL_ROWS / ROWS_PER_REQUEST} async requests`);
    const push = await pushAll(service.baseUrl, company, databaseId);
    const delay = await scrapeEventLoopDelay(service.baseUrl);
    const cpuMs = cpuMsOf(service.pid) - cpuBefore;
    const peak = memoryOf(service.pid).peakMb;
    if (push.imported !== TOTAL_ROWS) {
      throw new Error(`the jobs imported ${push.imported} rows, not ${TOTAL_ROWS}`);
    }
    const rowsPerSecond = TOTAL_ROWS / push.seconds;
    const rows: ResultRow[] = [
      { measure: 'rows/s, first request → last job COMPLETED', value: rowsPerSecond },
      { measure: 'seconds in all', value: push.seconds },
      { measure: 'seconds until the last request was accepted', value: push.acceptSeconds },
      { measure: 'service CPU ms per 1,000 rows', value: (cpuMs / TOTAL_ROWS) * 1000 },
      { measure: 'service peak RSS (MB)', value: peak },
      { measure: 'service RSS before (MB)', value: base.rssMb },
      { measure: 'event-loop delay p50 (ms)', value: delay.p50Ms },
      { measure: 'event-loop delay p99 (ms)', value: delay.p99Ms },
      { measure: 'event-loop delay max (ms)', value: delay.maxMs },
    ];
    const checks: Check[] = [
      {
        name: `rows/s / ${ROWS_PER_SECOND_TARGET}`,
        value: rowsPerSecond / ROWS_PER_SECOND_TARGET,
        atLeast: 1,
      },
      { name: `${PEAK_RSS_TARGET_MB} MB / peak RSS`, value: PEAK_RSS_TARGET_MB / peak, atLeast: 1 },
    ];
    const notes = [
      'The service runs compiled (node dist/main.js, ROLE=all) in its own process on 127.0.0.1; the client builds each 50,000-row body (about 4 MB of JSON) before the clock starts and sends them one after another, then polls the jobs.',
      'Event-loop delay: prom-client’s monitorEventLoopDelay histogram (10 ms resolution) of the service process, scraped from /actuator/prometheus before and after the window.',
    ];
    if (profileDir) {
      await service.stop();
      const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
      if (file) {
        notes.push(`CPU profile: ${join(profileDir, file)}`);
        for (const entry of topSelfTime(join(profileDir, file), 25)) {
          rows.push({ measure: `self ${entry.name}`, value: entry.ms, unit: 'ms' });
        }
      }
    }
    return { rows, checks, notes };
  },
});
