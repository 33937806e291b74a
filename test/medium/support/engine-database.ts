import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../src/common/persistence/transaction';
import type { AppConfig } from '../../../src/config/app-config.service';
import { transactionOf } from '../../../src/database/transactions';
import { dataSourceOptions } from '../../../src/database/data-source-options';
import { runMigrations } from '../../../src/database/migrate';
import { createDedicatedDatabase } from '../../e2e/foundation/helpers/databases';

/**
 * A migrated database of the spec's own on the test server, with a DataSource on it (what the
 * repositories take) and a pool for the spec's SQL: the engine's claims take any due campaign
 * of their database, so they must not share the run's database with specs whose workers run.
 */
export interface EngineDatabase {
  dataSource: DataSource;
  sql: Pool;
  /** `work` in a transaction of the DataSource, as a use case's unit of work runs it. */
  inTransaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** What the engine's repositories read of the configuration. */
export const ENGINE_CONFIG = { appTimezone: 'America/Sao_Paulo' } as AppConfig;

export async function openEngineDatabase(suffix: string): Promise<EngineDatabase> {
  const database = await createDedicatedDatabase(suffix);
  Logger.overrideLogger(false);
  await runMigrations(database.url);
  const dataSource = new DataSource(dataSourceOptions(database.url, { poolSize: 4 }));
  await dataSource.initialize();
  const sql = new Pool({ connectionString: database.url, max: 2 });
  sql.on('error', () => undefined);
  return {
    dataSource,
    sql,
    inTransaction: (work) => dataSource.transaction((manager) => work(transactionOf(manager))),
    close: async () => {
      await sql.end();
      await dataSource.destroy();
      await database.drop();
    },
  };
}
