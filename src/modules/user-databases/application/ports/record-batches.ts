import type { EntityManager } from 'typeorm';
import type { StoredRecord } from '../../domain/stored-record';

export interface BatchTarget {
  databaseId: number;
  companyId: number;
  /** created_at and updated_at of every record written. */
  now: Date;
  /** Leave out records whose phone the database already has (de-duplicating appends). */
  skipExistingPhones?: boolean;
}

/** Records on their way into one database, written in batches within the caller's transaction. */
export interface RecordBatch {
  /** Adds a record; a million of them must not cost a million promises, so this one is synchronous. */
  push(record: StoredRecord): void;
  /** Whether the caller should `await flush()` before pushing more. */
  readonly isFull: boolean;
  /** Sends the batch once the previous one is written; the next batch is built meanwhile. */
  flush(): Promise<void>;
  /**
   * Sends a batch another thread prepared (RecordBatches.serialize of each record, joined as a
   * JSON array), after the records pushed so far.
   */
  writePrepared(batchJson: string): Promise<void>;
  /** Pushes all of `records`, flushing as batches fill. */
  write(records: Iterable<StoredRecord>): Promise<void>;
  /** Writes what is left and answers how many records were inserted. */
  finish(): Promise<number>;
}

/** Opens record batches (the bulk insert of file uploads, push imports and gateway sync). */
export abstract class RecordBatches {
  abstract open(manager: EntityManager, target: BatchTarget): RecordBatch;
}
