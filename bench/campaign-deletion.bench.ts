import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'pg';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, requestJson, waitFor } from './support/api';
import { defineBenchmark, type ResultRow } from './support/benchmark';
import type { LoadResult } from './support/load';

const CONTACTS = 100_000;
/** Other campaigns of the company, so that the list read meanwhile has rows to answer. */
const LISTED_CAMPAIGNS = 20;

const phoneOf = (i: number): string => `55119${String(20_000_000 + i).padStart(8, '0')}`;

function contacts(count: number, offset: number): Array<{ phoneNumber: string; name: string }> {
  return Array.from({ length: count }, (_v, i) => ({
    phoneNumber: phoneOf(offset + i),
    name: `Contato ${offset + i}`,
  }));
}

function loadRow(label: string, load: LoadResult): ResultRow {
  return {
    measure: label,
    'req/s': Math.round(load.requestsPerSecond),
    'p50 ms': load.latencyMs.p50,
    'p99 ms': load.latencyMs.p99,
    'max ms': load.latencyMs.max,
    non2xx: load.non2xx,
  };
}

/**
 * DELETE /api/campaigns/{id} of a finished 100,000-contact campaign while GET /api/campaigns is
 * under load: how long the request takes (the campaign gone from every read), how long until
 * the batches removed every contact, and the list's latency meanwhile against a run without.
 */
export default defineBenchmark({
  name: 'campaign-deletion',
  description: 'delete of a 100,000-contact campaign: time to be gone, API p99 meanwhile',
  async run(context) {
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    fake.addInstance('bench', { apiKey: 'bench-key', state: 'open' });
    const service = await context.startApp({
      env: { ROLE: 'all', CAMPAIGN_CREATIONS_PER_HOUR: '1000000' },
    });
    const database = await context.database();
    const sql = new Pool({ connectionString: database.url, max: 2 });
    context.onCleanup(() => sql.end());
    const company = await registerBenchCompany(service.baseUrl);
    const headers = { 'X-Access-Token': company.token, 'Content-Type': 'application/json' };
    const create = async (name: string, list: ReturnType<typeof contacts>): Promise<number> =>
      (
        await requestJson(`${service.baseUrl}/api/campaigns`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            name,
            isDraft: true,
            gatewayUrl: fake.url,
            gatewayApiKey: 'bench-key',
            gatewayInstance: 'bench',
            message: 'Olá {PrimeiroNome}',
            contacts: list,
          }),
        })
      ).id as number;
    for (let i = 0; i < LISTED_CAMPAIGNS; i += 1) {
      await create(`Listada ${i}`, contacts(10, CONTACTS + i * 10));
    }
    const id = await create('A excluir', contacts(CONTACTS, 0));
    // As a campaign that ran: sent (no sent_xid: behind the SYSTEM-contacts feed already), some read,
    // some failed.
    await sql.query(
      `UPDATE campaign_contacts
          SET status = CASE WHEN id % 10 = 0 THEN 'FAILED' ELSE 'SENT' END,
              failure_kind = CASE WHEN id % 10 = 0 THEN 'retries_exhausted' END,
              sent_at = CASE WHEN id % 10 <> 0 THEN now() END,
              read_at = CASE WHEN id % 3 = 0 AND id % 10 <> 0 THEN now() END,
              gateway_message_id = CASE WHEN id % 10 <> 0 THEN 'BENCH' || id END
        WHERE campaign_id = $1`,
      [id],
    );
    await sql.query(
      `UPDATE campaigns SET status = 'COMPLETED', completed_at = now(), started_at = now() WHERE id = $1`,
      [id],
    );
    await sql.query('VACUUM ANALYZE campaign_contacts');
    // Follow-ups of it, copied set-based (INSERT … SELECT), then deleted so the list stays as it was.
    const copies: ResultRow[] = [];
    for (const mode of ['ALL', 'NOT_READ'] as const) {
      const copyStarted = performance.now();
      const copy = await requestJson(`${service.baseUrl}/api/campaigns/${id}/duplicate`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ contacts: mode }),
      });
      copies.push({
        measure: `duplicate ${mode} (${copy.copiedContacts as number} contacts)`,
        'answered ms': Math.round(performance.now() - copyStarted),
      });
      await fetch(`${service.baseUrl}/api/campaigns/${copy.id as number}`, {
        method: 'DELETE',
        headers,
      });
    }
    const target = {
      name: 'GET /api/campaigns',
      url: `${service.baseUrl}/api/campaigns`,
      headers: { 'X-Access-Token': company.token },
    };

    context.log('list under load, nothing being deleted');
    const baseline = await context.measure(target);
    context.log(`list under load while deleting ${CONTACTS} contacts`);
    const loadBefore = loadavg()[0];
    const during = context.measure(target);
    await sleep(context.settings.warmupSeconds * 1000 + 1000);
    const started = performance.now();
    const response = await fetch(`${service.baseUrl}/api/campaigns/${id}`, {
      method: 'DELETE',
      headers,
    });
    const answeredMs = performance.now() - started;
    if (response.status !== 204) {
      throw new Error(`DELETE answered ${response.status}: ${await response.text()}`);
    }
    const listed = await requestJson(`${service.baseUrl}/api/campaigns/${id}`, {
      headers,
    }).catch((error: Error) => error.message);
    const goneSeconds =
      (await waitFor(
        'every contact removed',
        async () =>
          (
            await sql.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = $1`,
              [id],
            )
          ).rows[0].n === 0,
        120_000,
        100,
      )) +
      answeredMs / 1000;
    const loaded = await during;
    const loadAfter = loadavg()[0];
    // For comparison: the same campaign deleted in one statement, contacts with it, as the
    // foreign key's cascade did (no campaign_deletions row: the trigger deletes them at once).
    const again = await create('Uma transação', contacts(CONTACTS, 0));
    const countOf = async (campaignId: number): Promise<number> =>
      (
        await sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = $1`,
          [campaignId],
        )
      ).rows[0].n;
    const heldBefore = await countOf(again);
    const oneStatementStarted = performance.now();
    await sql.query(`DELETE FROM campaigns WHERE id = $1`, [again]);
    const oneStatementMs = performance.now() - oneStatementStarted;
    const heldAfter = await countOf(again);
    return {
      rows: [
        loadRow('list, nothing deleted', baseline),
        loadRow('list, while deleting', loaded),
        {
          measure: `DELETE of ${CONTACTS} contacts`,
          'answered ms': Math.round(answeredMs),
          'contacts gone s': Number(goneSeconds.toFixed(2)),
          'load avg before/after': `${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)}`,
        },
        {
          measure: `one-statement DELETE of ${CONTACTS} (no load)`,
          'answered ms': Math.round(oneStatementMs),
          'load avg before/after': loadavg()[0].toFixed(2),
        },
        ...copies,
      ],
      notes: [
        `The campaign: ${CONTACTS} contacts created as a draft through the API, then made a finished campaign in SQL (90 % SENT, a third of them read, 10 % FAILED, all copied to the SYSTEM database).`,
        `DELETE issued ${context.settings.warmupSeconds + 1} s into the load run of GET /api/campaigns (${LISTED_CAMPAIGNS + 1} campaigns, then ${LISTED_CAMPAIGNS}); "contacts gone" counts from the request until no contact row is left.`,
        `One statement: ${heldBefore} contacts before, ${heldAfter} after.`,
        `GET /api/campaigns/${id} right after the 204: ${typeof listed === 'string' ? listed.slice(0, 60) : 'still found!'}`,
      ],
      details: { baseline, during: loaded, answeredMs, goneSeconds, oneStatementMs },
    };
  },
});
