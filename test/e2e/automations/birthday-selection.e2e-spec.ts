import { DataSource, EntityManager } from 'typeorm';
import { campaignContactsInsertSql } from '../../../src/modules/campaigns/infrastructure/campaigns.repository';
import { selectRecipients } from '../../../src/modules/automations/infrastructure/automation-selection';
import type { AutomationFilter } from '../../../src/modules/automations/domain/automation-rules';
import { importDatabase } from '../../support/automations';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { createDatabase } from '../../support/user-databases';
import { until } from '../../support/waiting';

/** LARGE_DATABASE_ROWS: a load this large asks for the per-database indexes. */
const ROWS = 20_000;
const BIRTHDAY: AutomationFilter = {
  filterId: 'nascimento',
  value: 'TODAY',
  operator: 'equals',
  ignoreYear: true,
};

/**
 * Birth dates over every day of the year, each day in each year from 1950 to 1999: 29 Feb in
 * the leap years, and the 366th day of the others as 1 January of the next year.
 */
function birthDate(i: number): string {
  const date = new Date(Date.UTC(1950 + (i % 50), 0, 1 + (Math.floor(i / 50) % 366)));
  const iso = date.toISOString().slice(0, 10);
  // Some cells are ISO date-times; the column keeps them as such (in UTC).
  return i % 97 === 0 ? `${iso}T12:30:00Z` : iso;
}

function phoneOf(i: number): string {
  return `5511${900000000 + i}`;
}

/** The phones whose birthday falls on one of these month-days. */
function phonesBornOn(...monthDays: string[]): string[] {
  const phones: string[] = [];
  for (let i = 0; i < ROWS; i += 1) {
    if (monthDays.includes(birthDate(i).slice(5, 10))) {
      phones.push(phoneOf(i));
    }
  }
  return phones.sort();
}

describe('birthday selection on DATE columns', () => {
  const {
    t,
    companies: [company],
  } = useE2eFixture({ companies: 1 });
  let dataSource: DataSource;
  let databaseId: number;
  const columns = [
    { columnName: 'nome', dataType: 'TEXT', isPhoneColumn: false, isNameColumn: true },
    { columnName: 'telefone', dataType: 'PHONE', isPhoneColumn: true, isNameColumn: false },
    { columnName: 'nascimento', dataType: 'DATE', isPhoneColumn: false, isNameColumn: false },
  ];

  beforeAll(async () => {
    dataSource = t.app.get(DataSource);
    const lines = ['Nome,Telefone,Nascimento'];
    for (let i = 0; i < ROWS; i += 1) {
      lines.push(`Pessoa ${i},${phoneOf(i)},${birthDate(i)}`);
    }
    const response = await createDatabase(
      t.http,
      company,
      Buffer.from(lines.join('\n') + '\n'),
      'aniversarios.csv',
      {
        name: 'Aniversários',
        columnMappings: [
          { originalName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
          { originalName: 'Telefone', dataType: 'PHONE', isPhoneColumn: true },
          { originalName: 'Nascimento', dataType: 'DATE', isPhoneColumn: false },
        ],
      },
    ).expect(201);
    databaseId = response.body.id as number;
  });

  const indexName = (): string => `udr_monthday_${databaseId}_3`;

  async function indexState(): Promise<string | null> {
    const { rows } = await db().query(`SELECT state FROM user_database_indexes WHERE name = $1`, [
      indexName(),
    ]);
    return (rows[0]?.state as string | undefined) ?? null;
  }

  /** Until the index's request is in `state` (null: gone). */
  async function indexReaches(state: string | null): Promise<void> {
    await until(indexState, (current) => current === state, 60_000);
  }

  /**
   * Runs the selection in a transaction that is rolled back, and returns the phones it chose.
   * `withoutIndexes` makes PostgreSQL read the records one by one, as for a small database.
   */
  async function select(
    options: {
      today: string;
      filters?: AutomationFilter[];
      database?: number;
      columnsOf?: typeof columns;
      withoutIndexes?: boolean;
    },
    explain?: (plan: string) => void,
  ): Promise<string[]> {
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      if (options.withoutIndexes) {
        await runner.query(`SET LOCAL enable_indexscan = off`);
        await runner.query(`SET LOCAL enable_bitmapscan = off`);
      }
      const [campaign] = (await runner.query(
        `INSERT INTO campaigns (company_id, name, status, type, gateway_config_id, gateway_name, gateway_url,
                                gateway_instance, min_interval, max_interval, created_at, updated_at)
         VALUES ($1, 'teste', 'DRAFT', 'TEXT', 0, 'x', 'x', 'x', 0, 0, now(), now()) RETURNING id`,
        [company.id],
      )) as Array<{ id: number }>;
      // EXPLAIN instead of running: the statement is the one selectRecipients builds.
      const manager = explain
        ? ({
            query: async (sql: string, params: unknown[]) => {
              const rows = (await runner.query(`EXPLAIN ${sql}`, params)) as Array<
                Record<string, string>
              >;
              explain(rows.map((row) => row['QUERY PLAN']).join('\n'));
              return [{ matched: 0, unblocked: 0, fresh: 0, selected: 0 }];
            },
          } as unknown as EntityManager)
        : runner.manager;
      const counts = await selectRecipients(manager, {
        companyId: company.id,
        databaseId: options.database ?? databaseId,
        automationId: 0,
        campaignId: campaign.id,
        filters: options.filters ?? [BIRTHDAY],
        columns: options.columnsOf ?? columns,
        today: options.today,
        applyBlockList: true,
        dedupStrategy: 'ONCE',
        dedupCooldownDays: null,
        sendLimit: null,
        contactsInsertSql: campaignContactsInsertSql,
      });
      const chosen = (await runner.query(
        `SELECT phone_number FROM campaign_contacts WHERE campaign_id = $1 ORDER BY phone_number`,
        [campaign.id],
      )) as Array<{ phone_number: string }>;
      if (!explain) {
        expect(counts.selected).toBe(chosen.length);
      }
      return chosen.map((row) => row.phone_number);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }

  it('a large load asks for a month-day index per DATE column, which the index worker builds', async () => {
    await indexReaches('READY');
    const { rows } = await db().query(
      `SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
         FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
      [indexName()],
    );
    expect(rows[0].valid).toBe(true);
    expect(rows[0].definition).toContain(`substr(("values" ->> 'nascimento'::text), 6, 5)`);
    expect(rows[0].definition).toContain(`WHERE (database_id = ${databaseId})`);
  });

  it('reads a birthday filter from the month-day index, and the sent-log through an anti-join', async () => {
    await indexReaches('READY');
    let plan = '';
    await select({ today: '2027-02-28' }, (text) => (plan = text));
    expect(plan).toContain(`Bitmap Index Scan on ${indexName()}`);
    expect(plan).toMatch(/Anti Join/);
    expect(plan).not.toMatch(/hashed SubPlan/);
  });

  it('answers the same rows with the index as without it, 29 Feb counting on 28 Feb of non-leap years', async () => {
    await indexReaches('READY');
    const cases: Array<[string, string[]]> = [
      ['2027-02-28', phonesBornOn('02-28', '02-29')],
      ['2028-02-28', phonesBornOn('02-28')],
      ['2028-02-29', phonesBornOn('02-29')],
      ['2027-03-01', phonesBornOn('03-01')],
      ['2026-12-31', phonesBornOn('12-31')],
    ];
    for (const [today, expected] of cases) {
      expect(expected.length).toBeGreaterThan(0);
      const indexed = await select({ today });
      const scanned = await select({ today, withoutIndexes: true });
      expect({ today, phones: indexed }).toEqual({ today, phones: expected });
      expect({ today, phones: scanned }).toEqual({ today, phones: expected });
    }
    // The 29 Feb birthdays among them are really there (leap years of the file).
    expect(phonesBornOn('02-29').length).toBeGreaterThan(0);
  });

  it('compares the other date filters of a DATE column on the stored ISO value', async () => {
    const on = (value: string, operator: AutomationFilter['operator'], ignoreYear: boolean) =>
      select({
        today: '2027-06-15',
        filters: [{ filterId: 'nascimento', value, operator, ignoreYear }],
      });
    const exact = await on('1960-02-29', 'equals', false);
    expect(exact).toEqual(
      Array.from({ length: ROWS }, (_v, i) => i)
        .filter((i) => birthDate(i).startsWith('1960-02-29'))
        .map(phoneOf)
        .sort(),
    );
    expect(exact.length).toBeGreaterThan(0);
    const beforeDay = await on('TODAY', 'before', true);
    expect(beforeDay).toEqual(
      Array.from({ length: ROWS }, (_v, i) => i)
        .filter((i) => birthDate(i).slice(5, 10) < '06-15')
        .map(phoneOf)
        .sort(),
    );
    const afterDate = await on('1999-12-30', 'after', false);
    expect(afterDate).toEqual(
      Array.from({ length: ROWS }, (_v, i) => i)
        .filter((i) => birthDate(i).slice(0, 10) > '1999-12-30')
        .map(phoneOf)
        .sort(),
    );
    expect(afterDate.length).toBeGreaterThan(0);
  });

  it('still reads ISO and DD/MM/YYYY birthdays of a text column, 29 Feb included', async () => {
    const small = await importDatabase(company, [
      { telefone: '11987650001', nome: 'Ana', nascimento: '29/02/1988' },
      { telefone: '11987650002', nome: 'Bia', nascimento: '1990-02-28' },
      { telefone: '11987650003', nome: 'Caio', nascimento: '1/3/1991' },
      { telefone: '11987650004', nome: 'Davi', nascimento: '1992-02-29T08:00:00Z' },
      { telefone: '11987650005', nome: 'Eva', nascimento: 'não sei' },
    ]);
    const textColumns = columns.map((c) =>
      c.columnName === 'nascimento' ? { ...c, dataType: 'TEXT' } : c,
    );
    const select2 = (today: string) =>
      select({ today, database: small.id, columnsOf: textColumns });
    expect(await select2('2027-02-28')).toEqual([
      '5511987650001',
      '5511987650002',
      '5511987650004',
    ]);
    expect(await select2('2028-02-28')).toEqual(['5511987650002']);
    expect(await select2('2028-02-29')).toEqual(['5511987650001', '5511987650004']);
    expect(await select2('2027-03-01')).toEqual(['5511987650003']);
  });

  it('drops the month-day index with its database', async () => {
    await indexReaches('READY');
    await company.delete(`/api/user-databases/${databaseId}`).expect(204);
    await indexReaches(null);
    const { rows } = await db().query(`SELECT to_regclass($1) AS index`, [indexName()]);
    expect(rows[0].index).toBeNull();
  });
});
