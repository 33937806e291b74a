import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contact databases (docs/API-RULES.md §6). Records keep their values in one JSONB
 * column; `search_text` is the lower-case, accent-free text of the text columns, written by
 * the service with every record, so that search is a LIKE over one short column.
 *
 * Indexes here are the ones every database needs: the page by id, the lookup by phone
 * (campaign variables, de-duplication) and the SYSTEM database's upsert key. Trigram search
 * and sort-by-column indexes exist only for large databases, as partial indexes per database
 * built in the background (user_database_indexes): a table-wide trigram index made bulk
 * loads about 4x slower on these machines.
 */
export class CreateUserDatabases1763791000000 implements MigrationInterface {
  name = 'CreateUserDatabases1763791000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`
      CREATE TABLE user_databases (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        name varchar(100) NOT NULL,
        description varchar(500),
        origin varchar(20) NOT NULL,
        status varchar(20) NOT NULL,
        row_count integer NOT NULL DEFAULT 0,
        columns jsonb NOT NULL,
        -- No foreign key: a synchronized database outlives the configuration it came from.
        gateway_config_id integer,
        include_groups boolean,
        last_synced_at timestamptz,
        last_sync_summary jsonb,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT user_databases_origin_check CHECK (origin IN ('UPLOAD','GATEWAY','PUSH_IMPORT','SYSTEM')),
        CONSTRAINT user_databases_status_check CHECK (status IN ('ACTIVE','INACTIVE','PROCESSING','ERROR'))
      )`);
    await q.query(`CREATE INDEX user_databases_company_idx ON user_databases (company_id, id)`);
    // One SYSTEM database per company, created lazily by whoever needs it first.
    await q.query(
      `CREATE UNIQUE INDEX user_databases_system_key ON user_databases (company_id) WHERE origin = 'SYSTEM'`,
    );

    await q.query(`
      CREATE TABLE user_database_records (
        id bigserial PRIMARY KEY,
        database_id integer NOT NULL REFERENCES user_databases(id) ON DELETE CASCADE,
        company_id integer NOT NULL,
        values jsonb NOT NULL,
        search_text text NOT NULL DEFAULT '',
        phone varchar(20),
        is_system boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX user_database_records_database_idx ON user_database_records (database_id, id)`,
    );
    await q.query(
      `CREATE INDEX user_database_records_phone_idx ON user_database_records (database_id, phone, id)`,
    );
    // The SYSTEM database keeps one record per phone: campaign sends upsert on this key.
    await q.query(
      `CREATE UNIQUE INDEX user_database_records_system_phone_key
         ON user_database_records (database_id, phone) WHERE is_system`,
    );

    // Per-database indexes the background worker builds (CREATE INDEX CONCURRENTLY) or drops.
    await q.query(`
      CREATE TABLE user_database_indexes (
        name varchar(63) PRIMARY KEY,
        database_id integer NOT NULL,
        kind varchar(10) NOT NULL,
        sort_key varchar(80),
        numeric_sort boolean NOT NULL DEFAULT false,
        state varchar(10) NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT user_database_indexes_kind_check CHECK (kind IN ('SEARCH','SORT')),
        CONSTRAINT user_database_indexes_state_check CHECK (state IN ('PENDING','READY','DROP','FAILED'))
      )`);
    await q.query(
      `CREATE INDEX user_database_indexes_work_idx ON user_database_indexes (created_at) WHERE state IN ('PENDING','DROP')`,
    );
    await q.query(
      `CREATE INDEX user_database_indexes_database_idx ON user_database_indexes (database_id)`,
    );

    await q.query(`
      CREATE TABLE contact_import_jobs (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        kind varchar(10) NOT NULL,
        status varchar(10) NOT NULL,
        -- The request, kept until the job finishes.
        payload jsonb,
        -- No foreign key: the job's history stays when its database is deleted.
        database_id integer,
        total_rows integer NOT NULL,
        imported integer,
        duplicates_removed integer,
        invalid_rows integer,
        row_errors jsonb,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        locked_by varchar(100),
        locked_until timestamptz,
        submitted_at timestamptz NOT NULL,
        started_at timestamptz,
        finished_at timestamptz,
        CONSTRAINT contact_import_jobs_kind_check CHECK (kind IN ('CONTACTS','GENERIC')),
        CONSTRAINT contact_import_jobs_status_check CHECK (status IN ('PENDING','RUNNING','COMPLETED','FAILED'))
      )`);
    await q.query(
      `CREATE INDEX contact_import_jobs_open_idx ON contact_import_jobs (submitted_at) WHERE status IN ('PENDING','RUNNING')`,
    );
    await q.query(
      `CREATE INDEX contact_import_jobs_company_idx ON contact_import_jobs (company_id, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // Partial per-database indexes go with the table.
    await q.query(`DROP TABLE contact_import_jobs`);
    await q.query(`DROP TABLE user_database_indexes`);
    await q.query(`DROP TABLE user_database_records`);
    await q.query(`DROP TABLE user_databases`);
  }
}
