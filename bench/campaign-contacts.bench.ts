import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { registerBenchCompany, type BenchCompany } from './support/api';
import { defineBenchmark, type Check, type ResultRow } from './support/benchmark';
import { memoryOf, startServiceProcess } from './support/service-process';

/** Targets of the contacts issue. */
const PAGE_P99_TARGET_MS = 50;
const EXPORT_RSS_GROWTH_TARGET_MB = 50;

const CONTACTS = 100_000;
/** Other campaigns' contacts in the table, so that the campaign is not the whole table. */
const OTHER_CONTACTS = 200_000;
const POOL_SENDERS = 4;
const WARMUP_REQUESTS = 20;
const MEASURED_REQUESTS = 200;

const FIRST_NAMES = ['José', 'Maria', 'João', 'Ana', 'Conceição', 'Antônio', 'Lúcia', 'Pedro'];
const LAST_NAMES = ['da Silva', 'Souza', 'Gonçalves', 'Araújo', 'Lima', 'Conceição', 'Ferreira'];

/**
 * Contacts of campaign `campaignIds[i % n]` numbered from `first`: 80 % SENT (of those,
 * delivered 75 %, read 40 %, replied 2 %), 10 % FAILED (five kinds in turn), 10 % PENDING,
 * names drawn from Brazilian first and last names with accents, one in 100 opted out.
 */
async function seedContacts(
  sql: Pool,
  companyId: number,
  campaignIds: number[],
  first: number,
  count: number,
): Promise<void> {
  await sql.query(
    `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, status, sent_at, failed_at,
                                    failure_kind, failure_reason, delivered_at, read_at, replied_at)
     SELECT ($3::int[])[1 + i % cardinality($3::int[])], $1,
            '55119' || lpad(i::text, 8, '0'),
            ($4::text[])[1 + i % cardinality($4::text[])] || ' ' || ($5::text[])[1 + (i / 8) % cardinality($5::text[])] || ' ' || i,
            CASE WHEN i % 10 = 0 THEN 'FAILED' WHEN i % 10 = 1 THEN 'PENDING' ELSE 'SENT' END,
            CASE WHEN i % 10 > 1 THEN now() - make_interval(secs => i) END,
            CASE WHEN i % 10 = 0 THEN now() END,
            CASE WHEN i % 10 = 0 THEN (ARRAY['refused_number','rejected','retries_exhausted','blocked','not_delivered'])[1 + (i / 10) % 5] END,
            CASE WHEN i % 10 = 0 THEN 'falha' END,
            CASE WHEN i % 10 > 3 THEN now() END,
            CASE WHEN i % 10 > 5 THEN now() END,
            CASE WHEN i % 50 = 9 THEN now() END
       FROM generate_series($2::int, $2::int + $6::int - 1) AS i`,
    [companyId, first, campaignIds, FIRST_NAMES, LAST_NAMES, count],
  );
  await sql.query(
    `INSERT INTO blocked_contacts (company_id, phone_number, blocked_by, blocked_at)
     SELECT $1, '55119' || lpad(i::text, 8, '0'), 'OPT_OUT', now()
       FROM generate_series($2::int, $2::int + $3::int - 1) AS i WHERE i % 100 = 7
     ON CONFLICT DO NOTHING`,
    [companyId, first, count],
  );
}

async function insertCampaign(sql: Pool, companyId: number, name: string): Promise<number> {
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO campaigns (company_id, name, status, type, gateway_config_id, gateway_name, gateway_url,
                            gateway_instance, min_interval, max_interval, created_at, updated_at, total_contacts)
     VALUES ($1, $2, 'COMPLETED', 'TEXT', 0, 'bench', 'http://127.0.0.1:1', $2, 0, 0, now(), now(), 0)
     RETURNING id`,
    [companyId, name],
  );
  return rows[0].id;
}

/**
 * Each campaign row's counters as the engine keeps them (the page's totals read them), and
 * the pool's row the sums of its senders'.
 */
async function countContacts(sql: Pool, companyId: number, pool: number): Promise<void> {
  await sql.query(
    `UPDATE campaigns k
        SET total_contacts = n.total, sent_contacts = n.sent, failed_contacts = n.failed,
            delivered_contacts = n.delivered, read_contacts = n.read, replied_contacts = n.replied
       FROM (SELECT campaign_id, count(*)::int AS total,
                    count(*) FILTER (WHERE status = 'SENT')::int AS sent,
                    count(*) FILTER (WHERE status = 'FAILED')::int AS failed,
                    count(delivered_at)::int AS delivered, count(read_at)::int AS read,
                    count(replied_at)::int AS replied
               FROM campaign_contacts WHERE company_id = $1 GROUP BY campaign_id) n
      WHERE k.id = n.campaign_id`,
    [companyId],
  );
  await sql.query(
    `UPDATE campaigns p
        SET total_contacts = s.total, sent_contacts = s.sent, failed_contacts = s.failed,
            delivered_contacts = s.delivered, read_contacts = s.read, replied_contacts = s.replied
       FROM (SELECT sum(total_contacts) AS total, sum(sent_contacts) AS sent,
                    sum(failed_contacts) AS failed, sum(delivered_contacts) AS delivered,
                    sum(read_contacts) AS read, sum(replied_contacts) AS replied
               FROM campaigns WHERE pool_id = $1 AND id <> $1) s
      WHERE p.id = $1`,
    [pool],
  );
}

interface Seeded {
  single: number;
  pool: number;
}

/** One campaign of 100,000 contacts, a pool of four senders with 100,000, and others' 200,000. */
async function seed(sql: Pool, company: BenchCompany): Promise<Seeded> {
  const single = await insertCampaign(sql, company.id, 'single');
  const pool = await insertCampaign(sql, company.id, 'pool');
  await sql.query(`UPDATE campaigns SET pool_id = id WHERE id = $1`, [pool]);
  const senders: number[] = [];
  for (let i = 0; i < POOL_SENDERS; i += 1) {
    const sender = await insertCampaign(sql, company.id, `pool-sender-${i}`);
    await sql.query(`UPDATE campaigns SET pool_id = $2 WHERE id = $1`, [sender, pool]);
    senders.push(sender);
  }
  const other = await insertCampaign(sql, company.id, 'other');
  await seedContacts(sql, company.id, [other], 0, OTHER_CONTACTS / 2);
  await seedContacts(sql, company.id, [single], OTHER_CONTACTS / 2, CONTACTS);
  await seedContacts(sql, company.id, senders, OTHER_CONTACTS / 2 + CONTACTS, CONTACTS);
  await seedContacts(
    sql,
    company.id,
    [other],
    OTHER_CONTACTS / 2 + 2 * CONTACTS,
    OTHER_CONTACTS / 2,
  );
  await countContacts(sql, company.id, pool);
  await sql.query(`VACUUM ANALYZE campaign_contacts`);
  await sql.query(`VACUUM ANALYZE blocked_contacts`);
  return { single, pool };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Sequential requests of one page: p50 and p99 over HTTP on 127.0.0.1, and the filtered total. */
async function measurePage(
  url: string,
  token: string,
): Promise<{ p50: number; p99: number; total: number }> {
  const timings: number[] = [];
  let total = 0;
  for (let i = 0; i < WARMUP_REQUESTS + MEASURED_REQUESTS; i += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers: { 'X-Access-Token': token } });
    await response.arrayBuffer();
    const ms = performance.now() - started;
    if (response.status !== 200) {
      throw new Error(`${url}: ${response.status}`);
    }
    total = Number(response.headers.get('x-total-count'));
    if (i >= WARMUP_REQUESTS) {
      timings.push(ms);
    }
  }
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 50), p99: percentile(timings, 99), total };
}

/**
 * One export read to the end and dropped: its time, size and the server process's peak RSS
 * growth (VmRSS from /proc sampled every 10 ms, minus the figure before the request).
 */
async function measureExport(
  url: string,
  token: string,
  serverPid: number,
): Promise<{ seconds: number; megabytes: number; rssGrowthMb: number }> {
  const base = memoryOf(serverPid).rssMb;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, memoryOf(serverPid).rssMb);
  }, 10);
  const started = performance.now();
  try {
    const response = await fetch(url, { headers: { 'X-Access-Token': token } });
    if (response.status !== 200 || !response.body) {
      throw new Error(`${url}: ${response.status}`);
    }
    let bytes = 0;
    for await (const chunk of response.body) {
      bytes += (chunk as Uint8Array).byteLength;
    }
    peak = Math.max(peak, memoryOf(serverPid).rssMb);
    return {
      seconds: (performance.now() - started) / 1000,
      megabytes: bytes / 1048576,
      rssGrowthMb: peak - base,
    };
  } finally {
    clearInterval(timer);
  }
}

const PAGE_CASES: Array<[campaign: keyof Seeded, query: string]> = [
  ['single', 'page=500&size=100'],
  ['single', 'status=FAILED&page=50'],
  ['single', 'receipt=READ&page=300'],
  ['single', 'status=SENT&receipt=NOT_DELIVERED'],
  ['single', 'failureKind=blocked&page=10'],
  ['single', 'receipt=REPLIED'],
  ['single', 'search=jose'],
  ['single', 'search=CONCEI%C3%87%C3%83O&page=20'],
  ['single', 'search=jose%20da%20silva%20100'],
  ['single', 'search=1234'],
  ['single', 'status=SENT&receipt=READ&search=maria'],
  ['pool', 'status=SENT&page=100'],
  ['pool', 'receipt=READ&search=lucia'],
  ['pool', 'search=98765'],
];

/** Every case of PAGE_CASES: its p50 and p99, and the worst p99 against the target. */
async function measurePages(
  baseUrl: string,
  token: string,
  campaigns: Seeded,
): Promise<{ rows: ResultRow[]; check: Check }> {
  const rows: ResultRow[] = [];
  let worstP99 = 0;
  for (const [campaign, query] of PAGE_CASES) {
    const url = `${baseUrl}/api/campaigns/${campaigns[campaign]}/contacts?${query}`;
    const { p50, p99, total } = await measurePage(url, token);
    worstP99 = Math.max(worstP99, p99);
    rows.push({
      case: `${campaign} ${decodeURIComponent(query)}`,
      total,
      p50Ms: +p50.toFixed(1),
      p99Ms: +p99.toFixed(1),
    });
  }
  const check = {
    name: `page p99: ${PAGE_P99_TARGET_MS} ms − worst p99`,
    value: PAGE_P99_TARGET_MS - worstP99,
    atLeast: 0,
  };
  return { rows, check };
}

const EXPORT_PASSES = 3;

/**
 * Each export in turn, three times over. The target holds for every export: the first ones in
 * the process (its code compiled, its heap grown) as well as the later ones.
 */
async function measureExports(
  service: { baseUrl: string; pid: number },
  token: string,
  campaigns: Seeded,
): Promise<{ rows: ResultRow[]; check: Check }> {
  const rows: ResultRow[] = [];
  let worstRss = 0;
  for (let pass = 1; pass <= EXPORT_PASSES; pass += 1) {
    for (const [campaign, format] of [
      ['single', 'csv'],
      ['single', 'xlsx'],
      ['pool', 'csv'],
      ['pool', 'xlsx'],
    ] as const) {
      const url = `${service.baseUrl}/api/campaigns/${campaigns[campaign]}/contacts/export?format=${format}`;
      const result = await measureExport(url, token, service.pid);
      worstRss = Math.max(worstRss, result.rssGrowthMb);
      rows.push({
        case: `${campaign} export ${format} (pass ${pass})`,
        total: CONTACTS,
        seconds: +result.seconds.toFixed(2),
        megabytes: +result.megabytes.toFixed(1),
        rssGrowthMb: +result.rssGrowthMb.toFixed(1),
      });
    }
  }
  const check = {
    name: `export RSS growth (every pass): ${EXPORT_RSS_GROWTH_TARGET_MB} MB − worst growth`,
    value: EXPORT_RSS_GROWTH_TARGET_MB - worstRss,
    atLeast: 0,
  };
  return { rows, check };
}

/**
 * `GET /api/campaigns/{id}/contacts` with filters and search on a campaign of 100,000 contacts
 * (and a pool of four senders holding 100,000) among 400,000, and the export of those
 * 100,000 as CSV and XLSX, three times over. `npm run bench -- campaign-contacts`
 * (BENCH_CONTACTS_PARTS=pages or =export for one part).
 */
export default defineBenchmark({
  name: 'campaign-contacts',
  description:
    'filtered contacts page and search p50/p99 (100k campaign), CSV/XLSX export time and RSS',
  async run(context) {
    const database = await context.database();
    const dir = mkdtempSync(join(tmpdir(), 'bench-campaign-contacts-'));
    context.onCleanup(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    context.log('building and starting the service process (ROLE=api)');
    const service = await startServiceProcess(dir, database.url);
    context.onCleanup(() => service.stop());
    const sql = new Pool({ connectionString: database.url, max: 2 });
    context.onCleanup(() => sql.end());
    const company = await registerBenchCompany(service.baseUrl);
    context.log('seeding 400,000 contacts');
    const campaigns = await seed(sql, company);
    const parts = (process.env.BENCH_CONTACTS_PARTS ?? 'pages,export').split(',');
    const rows: ResultRow[] = [];
    const checks: Check[] = [];
    if (parts.includes('pages')) {
      const pages = await measurePages(service.baseUrl, company.token, campaigns);
      rows.push(...pages.rows);
      checks.push(pages.check);
    }
    if (parts.includes('export')) {
      const exported = await measureExports(service, company.token, campaigns);
      rows.push(...exported.rows);
      checks.push(exported.check);
    }
    return {
      rows,
      checks,
      notes: [
        `Load average at the end: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}.`,
        `Pages: ${WARMUP_REQUESTS} warm-up then ${MEASURED_REQUESTS} sequential GETs per case over HTTP on 127.0.0.1 (the whole request: auth, validation, both queries, JSON); size 100 unless given. Seeded by SQL: 80 % SENT (75 % of them delivered, 40 % read, 2 % replied), 10 % FAILED (five kinds), 10 % PENDING; names from accented Brazilian first and last names; 1 % opted out. 200,000 contacts of another campaign in the table, VACUUM ANALYZE after the seed.`,
        'BENCH_CONTACTS_PARTS=pages or =export runs one part only.',
        'The service runs as its own process (compiled, ROLE=api, as bench/support/service-process starts it); the client is the bench process. Export: the file read to the end by fetch as fast as it comes; RSS growth = the peak VmRSS, sampled every 10 ms during the download, of the service minus its VmRSS before the request.',
      ],
    };
  },
});
