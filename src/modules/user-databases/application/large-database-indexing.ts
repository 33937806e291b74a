import { Injectable, Logger } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import type { UserDatabase } from '../domain/user-database.entity';
import { RecordIndexesRepository } from './ports/record-indexes.repository';
import { LARGE_DATABASE_ROWS } from './ports/record-indexes.repository';
import type { RecordSort } from '../domain/record-page';

/**
 * When a database grows large enough to need its own indexes, and keeping the planner's
 * statistics fresh after bulk loads (see LARGE_DATABASE_ROWS for why small ones get none).
 */
@Injectable()
export class LargeDatabaseIndexing {
  private readonly logger = new Logger(LargeDatabaseIndexing.name);

  constructor(private readonly indexes: RecordIndexesRepository) {}

  /**
   * In the load's transaction, so that the requests commit (and wake the worker) with the rows:
   * the search index, and a month-day index per DATE column, which answers a birthday
   * automation (ignoreYear) on a large database without reading all of its records.
   */
  async onLoaded(tx: Transaction, databaseId: number, rowCount: number): Promise<void> {
    if (rowCount >= LARGE_DATABASE_ROWS) {
      await this.indexes.requestSearchIndex(tx, databaseId);
      await this.indexes.requestMonthDayIndexes(tx, databaseId);
    }
  }

  /**
   * After a large load committed: statistics at once, so that the next page is read through
   * the indexes. Only when the load is at least a quarter of the database: a smaller append
   * leaves the estimates the right size, and the search index build after the loads settle
   * analyzes again; a client pushing a million rows in batches would otherwise analyze the
   * table after every batch. Skipped (and left to the index worker and autovacuum) when an
   * index build holds the table; never fails the load that already committed.
   */
  async afterCommit(written: number, rowCount: number): Promise<void> {
    if (written < LARGE_DATABASE_ROWS || written * 4 < rowCount) {
      return;
    }
    await this.indexes.analyzeRecords(true).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'ANALYZE after a bulk load failed');
    });
  }

  /** The first sort by a column of a large database asks for its index; this answer does not wait. */
  async onSorted(database: UserDatabase, sort: RecordSort): Promise<void> {
    if (database.rowCount < LARGE_DATABASE_ROWS || sort.kind === 'id') {
      return;
    }
    const position =
      sort.kind === 'column'
        ? (database.columns.find((c) => c.columnName === sort.columnName)?.position ?? null)
        : null;
    await this.indexes.requestSortIndex(database.id, sort, position);
  }
}
