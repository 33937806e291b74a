import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../../src/database/data-source-options';
import { runMigrations } from '../../../src/database/migrate';
import { ENTITIES, TABLES_WITHOUT_ENTITIES } from '../../../src/entity-catalog';
import { createDedicatedDatabase } from './helpers/databases';

/**
 * `npm run migration:generate` writes what TypeORM's schema builder finds between the entities
 * and the database. On a migrated database that must be nothing, or a developer following the
 * docs/CONTRIBUTING.md ("Add a migration") would generate a migration that drops constraints, indexes and columns.
 *
 * A database of its own, freshly migrated: the run's database may hold a probe table another
 * file creates for a moment (gateway-configs), which the table check would see.
 */
describe('the entities and the migrated schema', () => {
  let database: { url: string; drop(): Promise<void> };
  let dataSource: DataSource;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    database = await createDedicatedDatabase('schema');
    await runMigrations(database.url);
    dataSource = new DataSource(
      dataSourceOptions(database.url, { poolSize: 2, entities: ENTITIES }),
    );
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** Column names of every table of the public schema, by table. */
  async function tableColumns(): Promise<Map<string, string[]>> {
    const rows = await dataSource.query<Array<{ table_name: string; column_name: string }>>(
      `SELECT c.table_name, c.column_name
         FROM information_schema.columns c
         JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        ORDER BY c.table_name, c.column_name`,
    );
    const tables = new Map<string, string[]>();
    for (const row of rows) {
      tables.set(row.table_name, [...(tables.get(row.table_name) ?? []), row.column_name]);
    }
    return tables;
  }

  it('each entity maps every column of its table, and nothing else', async () => {
    const tables = await tableColumns();
    expect(dataSource.entityMetadatas).toHaveLength(ENTITIES.length);
    for (const metadata of dataSource.entityMetadatas) {
      // A virtual column is read with a subquery of its own (Campaign.pauseEndsAt), never stored.
      const mapped = metadata.columns
        .filter((column) => !column.isVirtualProperty)
        .map((column) => column.databaseName)
        .sort();
      expect({ table: metadata.tableName, columns: mapped }).toEqual({
        table: metadata.tableName,
        columns: tables.get(metadata.tableName),
      });
    }
    const virtual = dataSource.entityMetadatas.flatMap((metadata) =>
      metadata.columns
        .filter((column) => column.isVirtualProperty)
        .map((column) => `${metadata.tableName}.${column.propertyName}`),
    );
    expect(virtual).toEqual(['campaigns.pauseEndsAt']);
  });

  it('leaves TypeORM nothing to generate: no statement up, none down', async () => {
    const sql = await dataSource.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((query) => query.query)).toEqual([]);
    expect(sql.downQueries.map((query) => query.query)).toEqual([]);
  });

  it("knows every table: an entity's, or declared in TABLES_WITHOUT_ENTITIES", async () => {
    const tables = [...(await tableColumns()).keys()];
    const entityTables = dataSource.entityMetadatas.map((metadata) => metadata.tableName);
    const migrationsTable = dataSource.options.migrationsTableName ?? 'migrations';
    const unknown = tables.filter(
      (table) =>
        table !== migrationsTable &&
        !entityTables.includes(table) &&
        !TABLES_WITHOUT_ENTITIES.includes(table),
    );
    expect(unknown).toEqual([]);
    // The declared list names real tables only, none of them an entity's.
    expect(TABLES_WITHOUT_ENTITIES.filter((table) => !tables.includes(table))).toEqual([]);
    expect(TABLES_WITHOUT_ENTITIES.filter((table) => entityTables.includes(table))).toEqual([]);
    expect(tables).toEqual(expect.arrayContaining(entityTables));
  });
});
