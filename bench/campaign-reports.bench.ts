import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, requestJson, trackedBenchConfig } from './support/api';
import { defineBenchmark, type ResultRow } from './support/benchmark';
import {
  CAMPAIGN_REPORT,
  DAILY_REPORT,
} from '../src/modules/campaigns/infrastructure/campaign-reports.sql';

const CONTACTS = 100_000;
const CAMPAIGNS = 5_000;
const AUTOMATION_RUNS = 5_000;
const OPTED_OUT = 1_000;
const ROUNDS = 15;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/**
 * The reports and the list's filters on seeded data: a campaign of 100,000 contacts (sent over
 * ten hours, with receipts, replies, failures of every kind and 1,000 opt-outs) and a company
 * with 5,000 campaigns beside 5,000 automation runs. Rows are written with SQL (the API's
 * creation is measured by the campaigns bench); the routes are timed over HTTP, one request at
 * a time, and the plans PostgreSQL chose are kept.
 */
export default defineBenchmark({
  name: 'campaign-reports',
  description:
    'Campaign report of 100,000 contacts, company report, list filters over 5,000 campaigns',
  async run(context) {
    const database = await context.database();
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    const { baseUrl } = await context.startApp();
    const company = await registerBenchCompany(baseUrl);
    const config = await trackedBenchConfig(baseUrl, company, fake, 'bench-reports');
    const headers = { 'X-Access-Token': company.token, 'Content-Type': 'application/json' };
    const draft = await requestJson(`${baseUrl}/api/campaigns`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Relatório grande',
        isDraft: true,
        message: 'Olá',
        gatewayConfigId: config.id,
        contacts: [{ phoneNumber: '5511999990000' }],
      }),
    });
    const sql = new Client({ connectionString: database.url });
    await sql.connect();
    context.onCleanup(() => sql.end());
    context.log('seeding contacts, campaigns and automation runs');
    await seed(sql, company.id, draft.id as number);

    const time = async (path: string): Promise<ResultRow> => {
      const ms: number[] = [];
      for (let i = 0; i < ROUNDS; i += 1) {
        const started = performance.now();
        await requestJson(`${baseUrl}${path}`, { headers });
        ms.push(performance.now() - started);
      }
      return {
        route: path.replace(/\/\d+\//, '/{id}/'),
        'p50 ms': Math.round(percentile(ms, 0.5) * 10) / 10,
        'p95 ms': Math.round(percentile(ms, 0.95) * 10) / 10,
      };
    };
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 91 * 86_400_000).toISOString().slice(0, 10);
    const rows = [
      await time(`/api/campaigns/${draft.id}/report`),
      await time(`/api/campaigns/report?from=${from}&to=${today}`),
      await time('/api/campaigns'),
      await time('/api/campaigns?search=promocao%2042'),
      await time('/api/campaigns?search=natal'),
      await time(`/api/campaigns?gatewayConfigId=${config.id + 1}`),
      await time(`/api/campaigns?from=${from}&to=${from}`),
      await time('/api/campaigns?status=COMPLETED&page=3'),
    ];
    const loadavg = (await import('node:os'))
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ');
    return {
      rows,
      notes: [
        `${ROUNDS} requests per route, one at a time; load average at the end: ${loadavg}`,
        `contacts ${CONTACTS}, campaigns ${CAMPAIGNS}, automation runs ${AUTOMATION_RUNS}`,
      ],
      details: { plans: await plans(sql, company.id, config.id, draft.id as number) },
    };
  },
});

async function seed(sql: Client, companyId: number, campaignId: number): Promise<void> {
  // Contacts of the draft, sent over ten hours: every 5th delivered, every 10th read, every
  // 50th replied, every 40th failed with a kind in turn.
  await sql.query(
    `UPDATE campaigns SET status = 'COMPLETED', started_at = now() - interval '10 hours',
            completed_at = now(), total_contacts = $2 WHERE id = $1`,
    [campaignId, CONTACTS],
  );
  await sql.query(`DELETE FROM campaign_contacts WHERE campaign_id = $1`, [campaignId]);
  await sql.query(
    `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, status, sent_at,
                                    delivered_at, read_at, replied_at, failed_at, failure_kind)
     SELECT $1, $2, '55119' || lpad((20000000 + i)::text, 8, '0'), 'Contato ' || i,
            CASE WHEN i % 40 = 0 THEN 'FAILED' ELSE 'SENT' END,
            CASE WHEN i % 40 <> 0 THEN now() - make_interval(secs => 36000 - i * 0.36) END,
            CASE WHEN i % 40 <> 0 AND i % 5 = 0 THEN now() END,
            CASE WHEN i % 40 <> 0 AND i % 10 = 0 THEN now() END,
            CASE WHEN i % 40 <> 0 AND i % 50 = 0 THEN now() END,
            CASE WHEN i % 40 = 0 THEN now() - make_interval(secs => 36000 - i * 0.36) END,
            CASE WHEN i % 40 = 0 THEN (ARRAY['refused_number','rejected','retries_exhausted','not_delivered'])[1 + (i / 40) % 4] END
       FROM generate_series(1, $3) AS i`,
    [campaignId, companyId, CONTACTS],
  );
  await sql.query(
    `INSERT INTO blocked_contacts (company_id, phone_number, reason, blocked_by, blocked_at)
     SELECT $1, '55119' || lpad((20000000 + i * 97)::text, 8, '0'), 'descadastro', 'OPT_OUT', now()
       FROM generate_series(1, $2) AS i`,
    [companyId, OPTED_OUT],
  );
  // Copies of the draft's row: campaigns named in turn, created over a year, on 20 configurations.
  const columns = `company_id, description, status, type, is_test, message_content, gateway_name,
                   gateway_url, gateway_instance, min_interval, max_interval, updated_at`;
  await sql.query(
    `INSERT INTO campaigns (name, created_at, gateway_config_id, automation_run_id, ${columns})
     SELECT (ARRAY['Promoção ', 'Natal ', 'Aviso '])[1 + i % 3] || i,
            now() - make_interval(mins => i * 100), gateway_config_id + i % 20,
            CASE WHEN i > $2::int THEN i END, ${columns}
       FROM campaigns, generate_series(1, $2::int + $3::int) AS i WHERE id = $1`,
    [campaignId, CAMPAIGNS, AUTOMATION_RUNS],
  );
  await sql.query(`ANALYZE campaigns`);
  await sql.query(`ANALYZE campaign_contacts`);
  await sql.query(`ANALYZE blocked_contacts`);
}

/** The plans' first lines (which index, how many rows, how long), for docs/PERFORMANCE.md. */
async function plans(
  sql: Client,
  companyId: number,
  configId: number,
  campaignId: number,
): Promise<string[][]> {
  const listed = `FROM campaigns c WHERE c.company_id = $1 AND c.automation_run_id IS NULL
                    AND (c.pool_id IS NULL OR c.pool_id = c.id)`;
  const queries: Array<[string, unknown[]]> = [
    [`SELECT c.id ${listed} ORDER BY c.created_at DESC, c.id DESC LIMIT 100`, [companyId]],
    [
      `SELECT c.id ${listed} AND folded_text(c.name) LIKE '%' || folded_text($2) || '%'
        ORDER BY c.created_at DESC, c.id DESC LIMIT 100`,
      [companyId, 'promocao 42'],
    ],
    [
      `SELECT c.id ${listed} AND c.id IN (SELECT coalesce(s.pool_id, s.id) FROM campaigns s
          WHERE s.company_id = $1 AND s.gateway_config_id = $2)
        ORDER BY c.created_at DESC, c.id DESC LIMIT 100`,
      [companyId, configId + 1],
    ],
    [
      `SELECT c.id ${listed} AND c.status = $2 ORDER BY c.created_at DESC, c.id DESC LIMIT 100`,
      [companyId, 'COMPLETED'],
    ],
    [
      `SELECT c.id ${listed} AND c.created_at >= now() - interval '100 days'
          AND c.created_at < now() - interval '99 days'
        ORDER BY c.created_at DESC, c.id DESC LIMIT 100`,
      [companyId],
    ],
    [CAMPAIGN_REPORT, [campaignId, 'America/Sao_Paulo', companyId, 'OPT_OUT']],
    [
      DAILY_REPORT,
      [
        companyId,
        new Date(Date.now() - 92 * 86_400_000),
        new Date(),
        'America/Sao_Paulo',
        'OPT_OUT',
      ],
    ],
  ];
  const answers: string[][] = [];
  for (const [query, params] of queries) {
    const { rows } = await sql.query(`EXPLAIN (ANALYZE, BUFFERS OFF) ${query}`, params);
    answers.push(rows.map((row: Record<string, string>) => row['QUERY PLAN']));
  }
  return answers;
}
