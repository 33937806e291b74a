import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, requestJson } from './support/api';
import { defineBenchmark, type Check, type ResultRow } from './support/benchmark';

const CONTACTS = 100_000;
const BLOCKED_NUMBERS = 100_000;
const POOL_SENDERS = 10;
const ROUNDS = 3;
/** An edit that replaces 100,000 contacts within this many times their creation. */
const REPLACE_RATIO_TARGET = 1.5;

const phoneOf = (i: number): string => `55119${String(10_000_000 + i).padStart(8, '0')}`;

function contacts(offset: number): Array<{ phoneNumber: string; name: string }> {
  return Array.from({ length: CONTACTS }, (_v, i) => ({
    phoneNumber: phoneOf(offset + i),
    name: `Contato ${offset + i}`,
  }));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

interface Api {
  baseUrl: string;
  headers: Record<string, string>;
}

/** One request's time in ms, and its answer. */
async function timed(
  api: Api,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ ms: number; answer: Record<string, any> }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const started = performance.now();
  const answer = await requestJson(`${api.baseUrl}${path}`, {
    method,
    headers: api.headers,
    body: text,
  });
  return { ms: performance.now() - started, answer };
}

/** Each step of one draft's life, 100,000 contacts, in ms. */
async function oneRound(api: Api, configIds: number[], round: number): Promise<number[]> {
  const created = await timed(api, 'POST', '/api/campaigns', {
    name: `Rascunho ${round}`,
    message: 'Olá {PrimeiroNome}!',
    isDraft: true,
    scheduledFor: '2099-01-01T09:00:00',
    gatewayConfigId: configIds[0],
    contacts: contacts(round * 1_000_000),
  });
  const id = created.answer.id as number;
  const renamed = await timed(api, 'PUT', `/api/campaigns/${id}`, { name: 'Renomeado' });
  const replaced = await timed(api, 'PUT', `/api/campaigns/${id}`, {
    contacts: contacts(round * 1_000_000 + 500_000),
  });
  const pooled = await timed(api, 'PUT', `/api/campaigns/${id}`, { gatewayConfigIds: configIds });
  const launched = await timed(api, 'POST', `/api/campaigns/${id}/launch`);
  if (launched.answer.totalContacts !== CONTACTS || launched.answer.status !== 'SCHEDULED') {
    throw new Error(`unexpected launch: ${JSON.stringify(launched.answer).slice(0, 300)}`);
  }
  await timed(api, 'PUT', `/api/campaigns/${id}/cancel`);
  return [created.ms, renamed.ms, replaced.ms, pooled.ms, launched.ms];
}

/**
 * A draft of 100,000 contacts through its life: saved, renamed, its contacts replaced by
 * 100,000 others, moved onto a pool of 10 numbers (every contact given to a sender again),
 * launched (scheduled in 2099, so nothing is sent; the block list applied again).
 *
 * `npm run bench -- campaign-drafts`.
 */
export default defineBenchmark({
  name: 'campaign-drafts',
  description: 'draft of 100k contacts: create, rename, replace contacts, move to a pool, launch',
  async run(context) {
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    const service = await context.startApp({
      env: { ROLE: 'all', CAMPAIGN_CREATIONS_PER_HOUR: '1000000' },
    });
    const database = await context.database();
    const sql = new Pool({ connectionString: database.url, max: 2 });
    context.onCleanup(() => sql.end());
    const company = await registerBenchCompany(service.baseUrl);
    const api: Api = {
      baseUrl: service.baseUrl,
      headers: { 'X-Access-Token': company.token, 'Content-Type': 'application/json' },
    };
    const configIds: number[] = [];
    for (let i = 0; i < POOL_SENDERS; i += 1) {
      fake.addInstance(`drafts-${i}`, { apiKey: 'bench-key', state: 'open' });
      const config = await timed(api, 'POST', '/api/gateway-configs', {
        name: `drafts-${i}`,
        url: fake.url,
        apiKey: 'bench-key',
        instance: `drafts-${i}`,
      });
      configIds.push(config.answer.id as number);
    }
    await sql.query(
      `INSERT INTO blocked_contacts (company_id, phone_number, blocked_by, blocked_at)
       SELECT $1, '55113' || lpad(g::text, 7, '0'), 'IMPORT', now() FROM generate_series(1, $2) g`,
      [company.id, BLOCKED_NUMBERS],
    );
    await sql.query('ANALYZE blocked_contacts');
    const steps: number[][] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      context.log(`round ${round + 1}/${ROUNDS}`);
      steps.push(await oneRound(api, configIds, round));
    }
    const names = ['create draft', 'rename', 'replace contacts', 'move to a pool of 10', 'launch'];
    const medians = names.map((_name, i) => median(steps.map((round) => round[i])));
    const rows: ResultRow[] = names.map((name, i) => ({
      step: name,
      'median ms': Math.round(medians[i]),
      'rounds ms': steps.map((round) => Math.round(round[i])).join(' / '),
    }));
    const ratio = medians[2] / medians[0];
    const checks: Check[] = [
      {
        name: `replace contacts / create: ${REPLACE_RATIO_TARGET} − ratio`,
        value: REPLACE_RATIO_TARGET - ratio,
        atLeast: 0,
      },
    ];
    return {
      rows,
      checks,
      notes: [
        `${CONTACTS} contacts per draft, ${BLOCKED_NUMBERS} numbers on the company's block list (none of the contacts), ${ROUNDS} rounds, medians. Every request over HTTP on 127.0.0.1; the application and the client share this process, PostgreSQL is a separate server.`,
        'Rename: an edit of the definition only. Replace contacts: 100,000 new ones (the old deleted, the new normalized, block list anti-join, insert). Move to a pool: gatewayConfigIds of 10 saved configurations, the contacts kept and given to the senders again. Launch: the draft scheduled in 2099 (gateway check of the 10 numbers, block list applied again, senders moved).',
      ],
    };
  },
});
