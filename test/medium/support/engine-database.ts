import { Logger } from '@nestjs/common';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../../src/database/data-source-options';
import { runMigrations } from '../../../src/database/migrate';

/**
 * A migrated database of the spec's own on the test server, with a DataSource on it (what the
 * repositories take) and a pool for the spec's SQL: the engine's claims take any due campaign
 * of their database, so they must not share the run's database with specs whose workers run.
 */
export interface EngineDatabase {
  dataSource: DataSource;
  sql: Pool;
  close(): Promise<void>;
}

export async function openEngineDatabase(suffix: string): Promise<EngineDatabase> {
  const serverUrl = process.env.TEST_SERVER_URL;
  const runName = process.env.TEST_DATABASE_NAME;
  if (!serverUrl || !runName || !/test/.test(runName)) {
    throw new Error(
      'TEST_SERVER_URL and TEST_DATABASE_NAME are set by test/support/global-setup.js',
    );
  }
  const name = `${runName}_${suffix}`;
  await onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  Logger.overrideLogger(false);
  await runMigrations(url.toString());
  const dataSource = new DataSource(dataSourceOptions(url.toString(), { poolSize: 4 }));
  await dataSource.initialize();
  const sql = new Pool({ connectionString: url.toString(), max: 2 });
  sql.on('error', () => undefined);
  return {
    dataSource,
    sql,
    close: async () => {
      await sql.end();
      await dataSource.destroy();
      await onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}
