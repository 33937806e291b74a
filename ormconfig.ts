import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/database/data-source-options';
import { ENTITIES } from './src/entity-catalog';

/** The TypeORM CLI's data source (migration:generate, migration:run). Needs DATABASE_URL. */
const url = process.env.DATABASE_URL;
if (!url) {
  throw new Error('Set DATABASE_URL to run the TypeORM CLI');
}

export default new DataSource(dataSourceOptions(url, { entities: ENTITIES }));
