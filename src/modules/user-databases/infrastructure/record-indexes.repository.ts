import { AppConfig } from '../../../config/app-config.service';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { queryRows } from '../../../database/query-rows';
import { statusLiteral } from '../../../common/state/transition-table';
import { COLUMN_NAME_PATTERN, type ColumnDefinition } from '../domain/column';
import {
  RECORD_INDEX_LIFECYCLE,
  RECORD_INDEX_QUEUED,
  RECORD_INDEX_WORK_STATES,
} from '../domain/record-index-state';
import type { RecordSort } from '../application/ports/records.repository';
import {
  IndexRequest,
  RecordIndexesRepository,
  INDEX_CHANNEL,
  LOAD_SETTLE_SECONDS,
} from '../application/ports/record-indexes.repository';

/** Index names come from ids and positions only, never from user text. */
export function searchIndexName(databaseId: number): string {
  return `udr_search_${Math.trunc(databaseId)}`;
}

export function sortIndexName(databaseId: number, sortKey: 'created' | 'updated' | number): string {
  return `udr_sort_${Math.trunc(databaseId)}_${sortKey}`;
}

export function monthDayIndexName(databaseId: number, position: number): string {
  return `udr_monthday_${Math.trunc(databaseId)}_${Math.trunc(position)}`;
}

/**
 * The month and day (`MM-DD`) of a DATE column's stored value, which is always an ISO date or
 * an ISO date-time in UTC (see value-coercion.ts). The automations' selection
 * (automation-selection.ts) compares exactly this expression, so that PostgreSQL answers a
 * birthday filter (ignoreYear) from the index instead of reading every record.
 */
function monthDayExpression(columnName: string): string {
  return `(substr(values->>'${columnName}', 6, 5))`;
}

/**
 * The DDL of a request. Only integers and a columnName that matched COLUMN_NAME_PATTERN (and
 * is quoted as a literal besides) reach it; expressions equal RecordsRepository's ORDER BY and
 * the automations' month-day comparison.
 */
export function indexDefinition(request: IndexRequest): string {
  const databaseId = Math.trunc(request.databaseId);
  const where = `WHERE database_id = ${databaseId}`;
  if (request.kind === 'SEARCH') {
    return `USING gin (search_text gin_trgm_ops) ${where}`;
  }
  const key = request.sortKey ?? '';
  if (request.kind === 'SORT' && (key === 'created_at' || key === 'updated_at')) {
    return `(${key}, id) ${where}`;
  }
  if (!COLUMN_NAME_PATTERN.test(key)) {
    throw new Error(`refusing to index an unexpected key: ${JSON.stringify(key)}`);
  }
  if (request.kind === 'MONTH_DAY') {
    return `(${monthDayExpression(key)}) ${where}`;
  }
  const expression = request.numericSort
    ? `(((values->>'${key}')::numeric))`
    : `((values->>'${key}'))`;
  return `(${expression}, id) ${where}`;
}

/**
 * How long a claimed request is left alone. A build can outlast it: the builder also holds a
 * session advisory lock on the index name, which a dead builder's connection releases, so a
 * worker that claims the request again finds out whether the builder is still alive.
 */
const LEASE_SECONDS = 60;
/** Namespace of the advisory locks held while an index is built or dropped. */
const BUILD_LOCK_NAMESPACE = 7_346_201;

/** The lifecycle's moves and states as SQL literals (record-index-state.ts). */
const MOVE = {
  build: RECORD_INDEX_LIFECYCLE.sql('build'),
  fail: RECORD_INDEX_LIFECYCLE.sql('fail'),
  drop: RECORD_INDEX_LIFECYCLE.sql('drop'),
};
const QUEUED = statusLiteral(RECORD_INDEX_QUEUED);
const WORK_STATES = RECORD_INDEX_WORK_STATES.map(statusLiteral).join(', ');

@Injectable()
export class PgRecordIndexesRepository implements RecordIndexesRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Idempotent; returns whether a new request was queued. */
  async requestSearchIndex(manager: EntityManager, databaseId: number): Promise<boolean> {
    const queued = await this.request(
      manager,
      [
        {
          name: searchIndexName(databaseId),
          databaseId,
          kind: 'SEARCH',
          sortKey: null,
          numericSort: false,
        },
      ],
      LOAD_SETTLE_SECONDS,
    );
    return queued > 0;
  }

  /**
   * Idempotent: one month-day index per DATE column of the database, read in `manager`'s
   * transaction (a load's columns are saved in it). Returns how many new requests were queued.
   */
  async requestMonthDayIndexes(manager: EntityManager, databaseId: number): Promise<number> {
    const rows = await queryRows<{ columns: ColumnDefinition[] }>(
      manager,
      `SELECT columns FROM user_databases WHERE id = $1`,
      [databaseId],
    );
    const dateColumns = (rows[0]?.columns ?? []).filter(
      (column) => column.dataType === 'DATE' && COLUMN_NAME_PATTERN.test(column.columnName),
    );
    return this.request(
      manager,
      dateColumns.map((column) => ({
        name: monthDayIndexName(databaseId, column.position),
        databaseId,
        kind: 'MONTH_DAY',
        sortKey: column.columnName,
        numericSort: false,
      })),
      LOAD_SETTLE_SECONDS,
    );
  }

  async requestSortIndex(
    databaseId: number,
    sort: RecordSort,
    position: number | null,
  ): Promise<boolean> {
    if (sort.kind === 'id') {
      return false;
    }
    const name =
      sort.kind === 'column'
        ? sortIndexName(databaseId, position as number)
        : sortIndexName(databaseId, sort.kind === 'created_at' ? 'created' : 'updated');
    const queued = await this.request(this.dataSource.manager, [
      {
        name,
        databaseId,
        kind: 'SORT',
        sortKey: sort.kind === 'column' ? sort.columnName : sort.kind,
        numericSort: sort.kind === 'column' && sort.numeric,
      },
    ]);
    return queued > 0;
  }

  /** The database is gone: its indexes are dropped by the worker (DROP INDEX CONCURRENTLY). */
  async dropAllOf(manager: EntityManager, databaseId: number): Promise<void> {
    await manager.query(
      `UPDATE user_database_indexes SET state = ${MOVE.drop.to}, locked_until = NULL, attempts = 0, updated_at = now()
        WHERE database_id = $1 AND state IN (${MOVE.drop.from})`,
      [databaseId],
    );
    await manager.query(`SELECT pg_notify($1, '')`, [INDEX_CHANNEL]);
  }

  /** One request due for work, leased (a dead worker's request is taken over when the lease ends). */
  async claim(): Promise<IndexRequest | null> {
    const rows = await queryRows<IndexRequest>(
      this.dataSource,
      `UPDATE user_database_indexes SET locked_until = now() + make_interval(secs => $1), attempts = attempts + 1
        WHERE name = (SELECT name FROM user_database_indexes
                       WHERE state IN (${WORK_STATES}) AND (locked_until IS NULL OR locked_until < now())
                       ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING name, database_id AS "databaseId", kind, sort_key AS "sortKey",
                  numeric_sort AS "numericSort", state, attempts`,
      [LEASE_SECONDS],
    );
    return rows[0] ?? null;
  }

  /** Only if still PENDING: a database deleted during the build turned it into DROP. */
  async markReady(name: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE user_database_indexes SET state = ${MOVE.build.to}, locked_until = NULL, last_error = NULL, updated_at = now()
        WHERE name = $1 AND state IN (${MOVE.build.from})`,
      [name],
    );
  }

  async databaseExists(databaseId: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT id FROM user_databases WHERE id = $1`,
      [databaseId],
    );
    return rows.length > 0;
  }

  /** A request whose database went away before it was built. */
  async markForDrop(name: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE user_database_indexes SET state = ${MOVE.drop.to}, locked_until = NULL, updated_at = now()
        WHERE name = $1 AND state IN (${MOVE.drop.from})`,
      [name],
    );
  }

  async forget(name: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM user_database_indexes WHERE name = $1 AND state = ${MOVE.drop.to}`,
      [name],
    );
  }

  async markFailed(name: string, error: string, final: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE user_database_indexes
          SET last_error = left($2, 500), updated_at = now(),
              state = CASE WHEN $3 AND state IN (${MOVE.fail.from}) THEN ${MOVE.fail.to} ELSE state END,
              locked_until = CASE WHEN $3 THEN NULL ELSE now() + interval '1 minute' END
        WHERE name = $1`,
      [name, error, final],
    );
  }

  /**
   * Runs `work` on a dedicated connection holding the index's advisory lock; 'busy' when
   * another live worker holds it (its build outlasted the lease).
   */
  async exclusively(
    name: string,
    work: (runner: QueryRunner) => Promise<void>,
  ): Promise<'done' | 'busy'> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [lock] = (await runner.query(
        `SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked`,
        [BUILD_LOCK_NAMESPACE, name],
      )) as Array<{ locked: boolean }>;
      if (!lock.locked) {
        return 'busy';
      }
      try {
        await work(runner);
        return 'done';
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, [
          BUILD_LOCK_NAMESPACE,
          name,
        ]);
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * Builds the index without blocking writes (a plain CREATE INDEX would stop every company's
   * inserts into the table); a half-built, invalid one left by a dead builder is dropped first.
   */
  async build(runner: QueryRunner, request: IndexRequest): Promise<void> {
    await runner.query(`SET maintenance_work_mem = '256MB'`);
    // A background job's own budget: an index on a million records takes longer than a request's.
    await runner.query(`SELECT set_config('statement_timeout', $1, false)`, [
      String(this.config.workerStatementTimeoutMs),
    ]);
    try {
      const [existing] = (await runner.query(
        `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
        [request.name],
      )) as Array<{ valid: boolean }>;
      if (existing && !existing.valid) {
        await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${request.name}`);
      }
      await runner.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${request.name} ON user_database_records ${indexDefinition(request)}`,
      );
    } finally {
      await runner.query(`RESET maintenance_work_mem`);
      await runner.query(`RESET statement_timeout`);
    }
  }

  /**
   * Fresh planner statistics after a bulk load. Until autovacuum's next pass, a new database
   * of a million records looks empty to the planner, which then sorts it whole for a page of
   * 25 (2 s instead of 1 ms). skipLocked: give up rather than wait behind an index build.
   */
  async analyzeRecords(skipLocked: boolean, runner?: QueryRunner): Promise<void> {
    await (runner ?? this.dataSource).query(
      skipLocked ? `ANALYZE (SKIP_LOCKED) user_database_records` : `ANALYZE user_database_records`,
    );
  }

  async drop(runner: QueryRunner, name: string): Promise<void> {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }

  /** Another worker is still building it: leave the request leased, without spending an attempt. */
  async postpone(name: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE user_database_indexes
          SET attempts = greatest(attempts - 1, 0), locked_until = now() + make_interval(secs => $2)
        WHERE name = $1`,
      [name, LEASE_SECONDS],
    );
  }

  async msUntilNextDue(): Promise<number | null> {
    const rows = await queryRows<{ ms: number | null }>(
      this.dataSource,
      `SELECT extract(epoch FROM min(coalesce(locked_until, now())) - now()) * 1000 AS ms
         FROM user_database_indexes WHERE state IN (${WORK_STATES})`,
    );
    return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
  }

  /**
   * Queues the requests not queued yet, in one statement; returns how many were new. With
   * `settleSeconds`, a request waits that long (locked_until is its not-before time until its
   * first attempt), and one still waiting is pushed back by as much again.
   */
  private async request(
    manager: EntityManager,
    requests: ReadonlyArray<Omit<IndexRequest, 'state' | 'attempts'>>,
    settleSeconds = 0,
  ): Promise<number> {
    if (requests.length === 0) {
      return 0;
    }
    const rows = await queryRows<{ queued: boolean }>(
      manager,
      `INSERT INTO user_database_indexes (name, database_id, kind, sort_key, numeric_sort, state, locked_until)
       SELECT r.name, r.database_id, r.kind, r.sort_key, r.numeric_sort, ${QUEUED},
              CASE WHEN $6::int > 0 THEN now() + make_interval(secs => $6::int) END
         FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::boolean[])
              AS r(name, database_id, kind, sort_key, numeric_sort)
       ON CONFLICT (name) DO UPDATE SET locked_until = EXCLUDED.locked_until
        WHERE $6::int > 0 AND user_database_indexes.state = ${QUEUED} AND user_database_indexes.attempts = 0
       RETURNING xmax = 0 AS queued`,
      [
        requests.map((r) => r.name),
        requests.map((r) => r.databaseId),
        requests.map((r) => r.kind),
        requests.map((r) => r.sortKey),
        requests.map((r) => r.numericSort),
        settleSeconds,
      ],
    );
    const queued = rows.filter((row) => row.queued).length;
    if (queued > 0) {
      // Delivered when the transaction commits, to the worker of any instance.
      await manager.query(`SELECT pg_notify($1, '')`, [INDEX_CHANNEL]);
    }
    return queued;
  }
}
