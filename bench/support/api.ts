import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeEvolutionApi } from '../../test/support/fake-evolution-api';
import { BENCH_ADMIN_HEADER } from './app';

export interface BenchCompany {
  id: number;
  token: string;
}

/** A JSON request that must succeed; the error names the route and the answer. */
export async function requestJson(
  url: string,
  init: RequestInit = {},
): Promise<Record<string, any>> {
  const response = await fetch(url, init);
  const body = (await response.json()) as Record<string, any>;
  if (!response.ok) {
    throw new Error(
      `${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`,
    );
  }
  return body;
}

/** A fresh company registered with the admin credential, and its access token. */
export async function registerBenchCompany(baseUrl: string): Promise<BenchCompany> {
  const body = await requestJson(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { ...BENCH_ADMIN_HEADER, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      email: `bench-${Date.now()}-${Math.random()}@bench.com.br`,
      password: 'segredo123',
    }),
  });
  return { id: body.companyId as number, token: body.accessToken as string };
}

/**
 * A gateway configuration tracking delivery on a new open instance of the fake gateway: its id,
 * and the secret the service registered on the instance's webhook.
 */
export async function trackedBenchConfig(
  baseUrl: string,
  company: BenchCompany,
  fake: FakeEvolutionApi,
  instance: string,
): Promise<{ id: number; secret: string }> {
  const apiKey = `${instance}-key`;
  fake.addInstance(instance, { apiKey, state: 'open' });
  const config = await requestJson(`${baseUrl}/api/gateway-configs`, {
    method: 'POST',
    headers: { 'X-Access-Token': company.token, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bench', url: fake.url, apiKey, instance, trackDelivery: true }),
  });
  const secret = fake.webhookOf(instance)?.headers['x-campaign-service-secret'] as string;
  return { id: config.id as number, secret };
}

/** Polls `check` every `intervalMs` until it answers true; the seconds it took. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  intervalMs = 200,
): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check()) {
      return (performance.now() - started) / 1000;
    }
    await sleep(intervalMs);
  }
  throw new Error(`${what} did not happen within ${timeoutMs / 1000} s`);
}

/** Polls an async push import's job until it is COMPLETED (and answers it); FAILED throws. */
export async function waitForImportJob(
  baseUrl: string,
  company: BenchCompany,
  jobId: number,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Record<string, any>> {
  const url = `${baseUrl}/api/companies/${company.id}/imports/jobs/${jobId}`;
  let job: Record<string, any> = {};
  await waitFor(
    `import job ${jobId}`,
    async () => {
      job = await requestJson(url, { headers: { 'X-Access-Token': company.token } });
      if (job.status === 'FAILED') {
        throw new Error(`import job ${jobId} failed: ${job.error}`);
      }
      return job.status === 'COMPLETED';
    },
    options.timeoutMs ?? 600_000,
    options.intervalMs,
  );
  return job;
}
