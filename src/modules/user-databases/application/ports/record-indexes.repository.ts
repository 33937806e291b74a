import type { Transaction } from '../../../../common/persistence/transaction';
import type { RecordSort } from '../../domain/record-page';

declare const INDEX_CONNECTION: unique symbol;

/**
 * A database connection of the index work's own, outside any transaction (CREATE and DROP
 * INDEX CONCURRENTLY need one), held with the index's advisory lock: a handle to pass on.
 */
export interface IndexConnection {
  readonly [INDEX_CONNECTION]: true;
}

/** A per-database index the worker builds or drops. */
export interface IndexRequest {
  name: string;
  databaseId: number;
  kind: IndexKind;
  /** SORT: 'created_at', 'updated_at' or a columnName; MONTH_DAY: the DATE column's columnName. */
  sortKey: string | null;
  numericSort: boolean;
  state: 'PENDING' | 'DROP';
  attempts: number;
}

export type IndexKind = 'SEARCH' | 'SORT' | 'MONTH_DAY';

/** LISTEN/NOTIFY channel that wakes the index worker. */
export const INDEX_CHANNEL = 'user_database_indexes';

/**
 * A database at least this large gets its own trigram index for search, a month-day index per
 * DATE column (birthday automations) and, on the first sort by a column, its own sort index.
 * Below it, the (database_id, id) index plus a filter or an in-memory sort answers in a few
 * milliseconds, and no partial index is created, since each one adds a predicate check to
 * every insert into the table.
 */
export const LARGE_DATABASE_ROWS = 20_000;

/**
 * How long a database must go without a load before the indexes its loads asked for are
 * built. Every load pushes the build back by this much, so that a client pushing a million
 * rows in batches of 50,000 does not make each later batch maintain a trigram index (it
 * halves the insert rate) while a concurrent build competes for the same CPU.
 */
export const LOAD_SETTLE_SECONDS = 5;

export abstract class RecordIndexesRepository {
  /**
   * Idempotent; returns whether a new request was queued. A request not yet started waits
   * until LOAD_SETTLE_SECONDS after the last load that asked for it.
   */
  abstract requestSearchIndex(tx: Transaction, databaseId: number): Promise<boolean>;
  /**
   * Idempotent: one month-day index per DATE column of the database, read in `tx` (a load's
   * columns are saved in it). Returns how many new requests were queued. Like the search
   * index, they wait for the loads to settle.
   */
  abstract requestMonthDayIndexes(tx: Transaction, databaseId: number): Promise<number>;
  abstract requestSortIndex(
    databaseId: number,
    sort: RecordSort,
    position: number | null,
  ): Promise<boolean>;
  /** The database is gone: its indexes are dropped by the worker (DROP INDEX CONCURRENTLY). */
  abstract dropAllOf(tx: Transaction, databaseId: number): Promise<void>;
  /** One request due for work, leased (a dead worker's request is taken over when the lease ends). */
  abstract claim(): Promise<IndexRequest | null>;
  /** Only if still PENDING: a database deleted during the build turned it into DROP. */
  abstract markReady(name: string): Promise<void>;
  abstract databaseExists(databaseId: number): Promise<boolean>;
  /** A request whose database went away before it was built. */
  abstract markForDrop(name: string): Promise<void>;
  abstract forget(name: string): Promise<void>;
  abstract markFailed(name: string, error: string, final: boolean): Promise<void>;
  /**
   * Runs `work` on a dedicated connection holding the index's advisory lock; 'busy' when
   * another live worker holds it (its build outlasted the lease).
   */
  abstract exclusively(
    name: string,
    work: (connection: IndexConnection) => Promise<void>,
  ): Promise<'done' | 'busy'>;
  /**
   * Builds the index without blocking writes (a plain CREATE INDEX would stop every company's
   * inserts into the table); a half-built, invalid one left by a dead builder is dropped first.
   */
  abstract build(connection: IndexConnection, request: IndexRequest): Promise<void>;
  /**
   * Fresh planner statistics after a bulk load. Until autovacuum's next pass, a new database
   * of a million records looks empty to the planner, which then sorts it whole for a page of
   * 25 (2 s instead of 1 ms). skipLocked: give up rather than wait behind an index build.
   */
  abstract analyzeRecords(skipLocked: boolean, connection?: IndexConnection): Promise<void>;
  abstract drop(connection: IndexConnection, name: string): Promise<void>;
  /** Another worker is still building it: leave the request leased, without spending an attempt. */
  abstract postpone(name: string): Promise<void>;
  abstract msUntilNextDue(): Promise<number | null>;
}
