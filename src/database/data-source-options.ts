import type { DataSourceOptions } from 'typeorm';
import { TypeOrmJsonLogger } from '../common/logging/typeorm-logger';
import { MIGRATIONS } from './migrations';

/**
 * Two pools to the same server, through TypeORM's replication settings: the "master" pool takes
 * writes, transactions and raw queries, which is nearly all the background work (claims,
 * sends, imports); the "slave" pool takes the reads TypeORM makes outside a transaction (find,
 * findAndCount, query builders) and those that ask for it (onReadPool): what the API's list
 * and ownership checks do. A read then never queues behind a hundred campaigns' queries for a
 * connection. Both see the same committed data: there is no replica and no lag.
 */
const READ_POOL = (url: string): Pick<DataSourceOptions & { type: 'postgres' }, 'replication'> => ({
  replication: { master: { url }, slaves: [{ url }], defaultMode: 'slave' },
});

/**
 * The TypeORM options of every data source. The entities come from the caller (the
 * application's and the CLI's pass ENTITIES of src/entity-catalog.ts), so the database layer
 * of the shared kernel knows no feature module; migrations need none.
 */
export function dataSourceOptions(
  url: string,
  overrides: {
    poolSize?: number;
    statementTimeoutMs?: number;
    /** A second pool of `poolSize` for reads (see READ_POOL below); the application's has one. */
    separateReadPool?: boolean;
    entities?: DataSourceOptions['entities'];
  } = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    ...(overrides.separateReadPool ? READ_POOL(url) : {}),
    entities: overrides.entities ?? [],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    // JSON like every other log line; TypeORM's own console logger prints plain text and parameters.
    logger: new TypeOrmJsonLogger(),
    extra: {
      max: overrides.poolSize ?? 20,
      // Keeps a half-open connection from hanging a request forever.
      connectionTimeoutMillis: 10_000,
      application_name: 'campaign-service',
      // Every query of the pool ends after this (a slow one would hold a connection forever);
      // background jobs that need longer set their own for their statement.
      ...(overrides.statementTimeoutMs ? { statement_timeout: overrides.statementTimeoutMs } : {}),
    },
  };
}
