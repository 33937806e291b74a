import type { DataSource, EntityManager } from 'typeorm';
import type { Transaction } from '../common/persistence/transaction';
import { managerOf } from './transactions';

/**
 * Runs `read` on a connection of the read pool (see dataSourceOptions): for the raw queries
 * of the API's list endpoints, which TypeORM would otherwise send to the pool that background
 * work fills. Without a read pool, the one pool serves.
 */
export async function onReadPool<T>(
  dataSource: DataSource,
  read: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner('slave');
  try {
    return await read(runner.manager);
  } finally {
    await runner.release();
  }
}

/**
 * Rows of a raw query. TypeORM's postgres driver answers UPDATE and DELETE with
 * `[rows, affectedCount]` instead of the rows, so `… RETURNING` needs unwrapping.
 */
export async function queryRows<T>(
  runner: Transaction | EntityManager | DataSource,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const result: unknown = await queryable(runner).query(sql, params);
  if (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  ) {
    return result[0] as T[];
  }
  return result as T[];
}

/** Runs a statement and answers whatever the driver does (no unwrapping): for statements without RETURNING. */
export async function execute(
  runner: Transaction | EntityManager | DataSource,
  sql: string,
  params: unknown[] = [],
): Promise<void> {
  await queryable(runner).query(sql, params);
}

/**
 * The `ms` of a query's one row, a span in milliseconds as a number (PostgreSQL's numeric
 * arrives as text); null when the row or its value is missing (nothing waits).
 */
export async function queryMilliseconds(
  runner: Transaction | EntityManager | DataSource,
  sql: string,
  params: unknown[] = [],
): Promise<number | null> {
  const rows = await queryRows<{ ms: number | string | null }>(runner, sql, params);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : Number(ms);
}

/**
 * How many rows `dueRows` (a SELECT over a due index) finds, counting no further than `cap`:
 * a queue's depth for the metrics, bounded so that a long backlog costs no more than `cap`.
 */
export async function countUpTo(
  runner: Transaction | EntityManager | DataSource,
  dueRows: string,
  cap: number,
): Promise<number> {
  const rows = await queryRows<{ due: number }>(
    runner,
    `SELECT count(*)::int AS due FROM (${dueRows} LIMIT $1) d`,
    [cap],
  );
  return rows[0].due;
}

function queryable(runner: Transaction | EntityManager | DataSource): EntityManager | DataSource {
  return 'query' in runner ? runner : managerOf(runner);
}

interface PreparingPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Rows of a named prepared statement, on the data source's own pool: each connection parses
 * and plans `text` once instead of on every call. For the engine's hot statements, where
 * planning cost as much as running them. `name` must always come with the same `text`.
 */
export async function queryPrepared<T>(
  dataSource: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: PreparingPool }).master;
  const result = await pool.query({ name, text, values });
  return result.rows as T[];
}
