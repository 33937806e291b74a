import { performance } from 'node:perf_hooks';
import { campaignContactsInsertSql } from '../src/modules/campaigns/infrastructure/campaigns.repository';
import type { SelectionCounts } from '../src/modules/automations/infrastructure/automation-selection';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../src/database/data-source-options';
import { transactionOf } from '../src/database/transactions';
import { ENTITIES } from '../src/entity-catalog';
import { selectRecipients } from '../src/modules/automations/infrastructure/automation-selection';
import { PgRecordIndexesRepository } from '../src/modules/user-databases/infrastructure/record-indexes.repository';
import { monthDayIndexName } from '../src/modules/user-databases/infrastructure/record-indexes.repository';
import { registerBenchCompany } from './support/api';
import { defineBenchmark, type ResultRow } from './support/benchmark';

const SELECTION_TARGET_MS = 500;
const ALL_STARTED_TARGET_S = 60;
const RECORDS = 1_000_000;
const SENT_LOG = 100_000;
const DUE_AUTOMATIONS = 1000;
const ROUNDS = 5;
/** Position of the DATE column `nascimento` below. */
const BIRTH_DATE_POSITION = 3;

/**
 * Automations: (1) the recipient selection of a birthday filter (TODAY, ignoreYear) on a
 * 1,000,000-record database with a 100,000-row sent-log (ONCE), the whole statement that a
 * run executes, inside a transaction that is rolled back: first as right after the load, then
 * once the index worker has built the DATE column's month-day index, as a load of a large
 * database asks it to (the figure with a target); (2) 1,000 automations due at the same
 * minute on one worker: time until every run has started.
 *
 * `npm run bench -- automations`.
 */
export default defineBenchmark({
  name: 'automations',
  description:
    'birthday selection on 1M records with a 100k sent-log; 1,000 automations due at once',
  async run(context) {
    const service = await context.startApp({ env: { ROLE: 'all' } });
    const database = await context.database();
    const sql = new Pool({ connectionString: database.url, max: 2 });
    context.onCleanup(() => sql.end());
    const companyId = (await registerBenchCompany(service.baseUrl)).id;
    const columns = [
      {
        columnName: 'telefone',
        displayName: 'Telefone',
        dataType: 'PHONE',
        isPhoneColumn: true,
        isNameColumn: false,
        position: 1,
      },
      {
        columnName: 'nome',
        displayName: 'Nome',
        dataType: 'TEXT',
        isPhoneColumn: false,
        isNameColumn: true,
        position: 2,
      },
      {
        columnName: 'nascimento',
        displayName: 'Nascimento',
        dataType: 'DATE',
        isPhoneColumn: false,
        isNameColumn: false,
        position: 3,
      },
    ];
    const big = await createDatabase(sql, companyId, columns, RECORDS);
    const small = await createDatabase(sql, companyId, columns, 10);
    const gateway = await sql.query<{ id: number }>(
      `INSERT INTO gateway_configs (company_id, name, url, api_key_encrypted, instance, created_at, updated_at)
       VALUES ($1, 'bench', 'http://127.0.0.1:9', 'v1:x', 'bench', now(), now()) RETURNING id`,
      [companyId],
    );
    const automationId = await insertAutomation(
      sql,
      companyId,
      big,
      gateway.rows[0].id,
      'infinity',
    );
    context.log(`sent-log: ${SENT_LOG} rows`);
    await sql.query(
      `INSERT INTO automation_sent_log (automation_id, run_id, phone_number, sent_at)
       SELECT $1, 0, '55119' || lpad((g * 10)::text, 8, '0'), now() - interval '30 days'
         FROM generate_series(1, $2) g`,
      [automationId, SENT_LOG],
    );
    await sql.query('ANALYZE');

    const dataSource = new DataSource(
      dataSourceOptions(database.url, { poolSize: 2, entities: ENTITIES }),
    );
    await dataSource.initialize();
    context.onCleanup(() => dataSource.destroy());
    const today = new Date().toISOString().slice(0, 10);
    const measureSelection = async (): Promise<Selection> => {
      const timings: number[] = [];
      let counts: SelectionCounts | undefined;
      for (let round = 0; round < ROUNDS; round += 1) {
        const runner = dataSource.createQueryRunner();
        await runner.startTransaction();
        try {
          const campaign = await runner.query(
            `INSERT INTO campaigns (company_id, name, status, type, gateway_config_id, gateway_name, gateway_url,
                                    gateway_instance, min_interval, max_interval, created_at, updated_at)
             VALUES ($1, 'bench', 'DRAFT', 'TEXT', 0, 'x', 'x', 'x', 0, 0, now(), now()) RETURNING id`,
            [companyId],
          );
          const started = performance.now();
          counts = await selectRecipients(runner.manager, {
            companyId,
            databaseId: big,
            automationId,
            campaignId: (campaign as Array<{ id: number }>)[0].id,
            filters: [
              { filterId: 'nascimento', value: 'TODAY', operator: 'equals', ignoreYear: true },
            ],
            columns,
            today,
            applyBlockList: true,
            dedupStrategy: 'ONCE',
            dedupCooldownDays: null,
            sendLimit: null,
            contactsInsertSql: campaignContactsInsertSql,
          });
          timings.push(performance.now() - started);
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      }
      timings.sort((a, b) => a - b);
      return { ms: timings[Math.floor(timings.length / 2)], counts: counts as SelectionCounts };
    };

    context.log('selection without the month-day index');
    const unindexed = await measureSelection();
    // What a load of a large database requests; the application's index worker builds it.
    const indexName = monthDayIndexName(big, BIRTH_DATE_POSITION);
    const buildStarted = performance.now();
    await dataSource.transaction((manager) =>
      new PgRecordIndexesRepository(dataSource, service.config).requestMonthDayIndexes(
        transactionOf(manager),
        big,
      ),
    );
    context.log(`waiting for ${indexName}`);
    await waitForIndex(sql, indexName);
    const buildSeconds = (performance.now() - buildStarted) / 1000;
    const indexed = await measureSelection();

    context.log(`${DUE_AUTOMATIONS} automations due now`);
    await sql.query(
      `INSERT INTO automations (company_id, name, is_active, schedule_type, schedule, database_config_id, gateway_config_id,
                                filters, message_config, interval_min_seconds, interval_max_seconds, dedup_strategy,
                                next_run_at, created_at, updated_at)
       SELECT $1, 'due ' || g, true, 'DAILY', '{"timeOfDay":"09:00","timezone":"America/Sao_Paulo"}', $2, $3,
              '[]', '{"type":"TEXT","message":"Oi"}', 0, 0, 'NEVER', now() + interval '2 seconds', now(), now()
         FROM generate_series(1, $4) g`,
      [companyId, small, gateway.rows[0].id, DUE_AUTOMATIONS],
    );
    const dueAt = Date.now() + 2000;
    let started = 0;
    while (started < DUE_AUTOMATIONS && Date.now() < dueAt + 300_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const { rows } = await sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM automation_runs r JOIN automations a ON a.id = r.automation_id
          WHERE a.company_id = $1 AND a.name LIKE 'due %'`,
        [companyId],
      );
      started = rows[0].n;
    }
    const allStartedSeconds = (Date.now() - dueAt) / 1000;
    await sql.query(`UPDATE automations SET is_active = false WHERE company_id = $1`, [companyId]);
    await sql.query(
      `UPDATE campaigns SET status = 'CANCELLED' WHERE company_id = $1 AND status = 'ACTIVE'`,
      [companyId],
    );
    const selectionRow = (label: string, selection: Selection): ResultRow => ({
      measure: `birthday selection, ${RECORDS.toLocaleString('en')} records, ${SENT_LOG.toLocaleString('en')} sent-log, ${label} (median of ${ROUNDS})`,
      ms: Math.round(selection.ms),
      matched: selection.counts.matched,
      skippedByDedup: selection.counts.skippedByDedup,
      selected: selection.counts.selected,
    });
    const rows: ResultRow[] = [
      selectionRow('no month-day index yet', unindexed),
      {
        measure: 'month-day index built by the index worker, from the request',
        seconds: +buildSeconds.toFixed(1),
      },
      selectionRow('month-day index', indexed),
      {
        measure: `${DUE_AUTOMATIONS} automations due at once, one worker`,
        seconds: +allStartedSeconds.toFixed(1),
        runsStarted: started,
      },
    ];
    return {
      rows,
      checks: [
        {
          name: `selection (month-day index): ${SELECTION_TARGET_MS} ms − median`,
          value: SELECTION_TARGET_MS - indexed.ms,
          atLeast: 0,
        },
        {
          name: `all runs started: ${ALL_STARTED_TARGET_S} s − time`,
          value: ALL_STARTED_TARGET_S - allStartedSeconds,
          atLeast: 0,
        },
      ],
      notes: [
        'Selection: selectRecipients (the statement a run executes: filters, block-list anti-join, sent-log anti-join, insert of the chosen contacts) in a transaction rolled back after timing; dates spread evenly over the year.',
        'The records are inserted in SQL, so the bench asks for the month-day index of the DATE column as a load of a large database does (LargeDatabaseIndexing.onLoaded); the application (ROLE=all) builds it with CREATE INDEX CONCURRENTLY. The selection is measured before and after.',
        'Due automations: 1,000 rows inserted with next_run_at 2 s ahead, on a 10-record database each; the application (ROLE=all) runs the scheduler; time from due to the 1,000th run row.',
      ],
    };
  },
});

interface Selection {
  ms: number;
  counts: SelectionCounts;
}

async function waitForIndex(sql: Pool, name: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql.query<{ state: string }>(
      `SELECT state FROM user_database_indexes WHERE name = $1`,
      [name],
    );
    if (rows[0]?.state === 'READY') {
      return;
    }
    if (rows[0]?.state === 'FAILED' || Date.now() > deadline) {
      throw new Error(`index ${name} not built: ${rows[0]?.state ?? 'no request'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function createDatabase(
  sql: Pool,
  companyId: number,
  columns: unknown[],
  records: number,
): Promise<number> {
  const db = await sql.query<{ id: number }>(
    `INSERT INTO user_databases (company_id, name, origin, status, row_count, columns, created_at, updated_at)
     VALUES ($1, 'bench', 'UPLOAD', 'ACTIVE', $2, $3, now(), now()) RETURNING id`,
    [companyId, records, JSON.stringify(columns)],
  );
  const id = db.rows[0].id;
  await sql.query(
    `INSERT INTO user_database_records (database_id, company_id, values, search_text, phone, created_at, updated_at)
     SELECT $1, $2,
            jsonb_build_object('telefone', '55119' || lpad(g::text, 8, '0'), 'nome', 'Cliente ' || g,
                               'nascimento', to_char(date '1960-01-01' + (g % 365) + (g % 40) * 365, 'YYYY-MM-DD')),
            'cliente ' || g, '55119' || lpad(g::text, 8, '0'), now(), now()
       FROM generate_series(1, $3) g`,
    [id, companyId, records],
  );
  return id;
}

async function insertAutomation(
  sql: Pool,
  companyId: number,
  databaseId: number,
  gatewayId: number,
  nextRun: string,
): Promise<number> {
  const result = await sql.query<{ id: number }>(
    `INSERT INTO automations (company_id, name, is_active, schedule_type, schedule, database_config_id, gateway_config_id,
                              filters, message_config, interval_min_seconds, interval_max_seconds, dedup_strategy,
                              next_run_at, created_at, updated_at)
     VALUES ($1, 'birthday', false, 'DAILY', '{"timeOfDay":"09:00","timezone":"America/Sao_Paulo"}', $2, $3,
             '[]', '{"type":"TEXT","message":"Oi"}', 0, 0, 'ONCE', $4::timestamptz, now(), now()) RETURNING id`,
    [companyId, databaseId, gatewayId, nextRun === 'infinity' ? null : nextRun],
  );
  return result.rows[0].id;
}
