import { LargeDatabaseIndexing } from './large-database-indexing';
import { LARGE_DATABASE_ROWS, RecordIndexesRepository } from './ports/record-indexes.repository';

describe('LargeDatabaseIndexing.afterCommit', () => {
  const analyzed: boolean[] = [];
  const indexes = {
    analyzeRecords: (skipLocked: boolean) => {
      analyzed.push(skipLocked);
      return Promise.resolve();
    },
  } as unknown as RecordIndexesRepository;
  const indexing = new LargeDatabaseIndexing(indexes);
  beforeEach(() => analyzed.splice(0));

  it.each([
    ['a large new database', LARGE_DATABASE_ROWS, LARGE_DATABASE_ROWS, true],
    ['a large load that is a quarter of the database', 50_000, 200_000, true],
    ['a large load that is less than a quarter of the database', 50_000, 250_000, false],
    ['a small load', LARGE_DATABASE_ROWS - 1, LARGE_DATABASE_ROWS - 1, false],
  ])('analyzes after %s: %s rows into %s', async (_case, written, rowCount, expected) => {
    await indexing.afterCommit(written, rowCount);
    expect(analyzed).toEqual(expected ? [true] : []);
  });
});
