import { Pool } from 'pg';
import { testDatabaseUrl } from './test-app';

let pool: Pool | undefined;

/**
 * A pool for the tests' own SQL on `url`. A pool without an 'error' listener turns an idle
 * connection ended by the server (a database dropped WITH (FORCE), a restart) into an uncaught
 * error that fails whichever spec the Jest worker runs at that moment; pg only needs the
 * listener to drop the broken connection and open a new one when asked.
 */
export function sqlPool(url: string, max: number): Pool {
  const created = new Pool({ connectionString: url, max });
  created.on('error', () => undefined);
  return created;
}

/** Direct SQL for assertions about what the service stored (never to stand in for it). */
export function db(): Pool {
  pool ??= sqlPool(testDatabaseUrl(), 4);
  return pool;
}

export async function closeDb(): Promise<void> {
  await pool?.end();
  pool = undefined;
}

export async function countRows(
  table: string,
  where = 'true',
  params: unknown[] = [],
): Promise<number> {
  const { rows } = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${table} WHERE ${where}`,
    params,
  );
  return rows[0].n;
}
