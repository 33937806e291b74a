import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A third kind of per-database index the index worker builds: the month and day of a DATE
 * column, so that a birthday automation (ignoreYear) on a large database reads the day's
 * records from the index instead of every record of the database.
 *
 * New loads ask for it (LargeDatabaseIndexing.onLoaded); the large databases loaded before
 * this migration are queued here, as a load would have queued them, and the worker builds
 * them after the start.
 */
export class AddMonthDayRecordIndexes1763820000000 implements MigrationInterface {
  name = 'AddMonthDayRecordIndexes1763820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE user_database_indexes
        DROP CONSTRAINT user_database_indexes_kind_check,
        ADD CONSTRAINT user_database_indexes_kind_check CHECK (kind IN ('SEARCH','SORT','MONTH_DAY'))`);
    // 20000: LARGE_DATABASE_ROWS when this was written. Names as monthDayIndexName; the column
    // names match COLUMN_NAME_PATTERN, which the worker checks again before any DDL.
    await q.query(`
      INSERT INTO user_database_indexes (name, database_id, kind, sort_key, numeric_sort, state)
      SELECT 'udr_monthday_' || d.id || '_' || (c->>'position')::int, d.id, 'MONTH_DAY', c->>'columnName', false, 'PENDING'
        FROM user_databases d CROSS JOIN jsonb_array_elements(d.columns) c
       WHERE d.row_count >= 20000 AND d.origin <> 'SYSTEM' AND c->>'dataType' = 'DATE'
         AND c->>'columnName' ~ '^[a-z][a-z0-9_]{0,62}$'
      ON CONFLICT (name) DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    const rows = (await q.query(
      `SELECT name FROM user_database_indexes WHERE kind = 'MONTH_DAY'`,
    )) as Array<{ name: string }>;
    for (const { name } of rows) {
      // Names come from ids and positions only (monthDayIndexName).
      await q.query(`DROP INDEX IF EXISTS ${q.connection.driver.escape(name)}`);
    }
    await q.query(`DELETE FROM user_database_indexes WHERE kind = 'MONTH_DAY'`);
    await q.query(`
      ALTER TABLE user_database_indexes
        DROP CONSTRAINT user_database_indexes_kind_check,
        ADD CONSTRAINT user_database_indexes_kind_check CHECK (kind IN ('SEARCH','SORT'))`);
  }
}
