import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryRows } from '../../../database/query-rows';
import { TimeSlicer } from '../../../common/work/time-slicer';
import type { StoredRecord } from '../domain/stored-record';
import { batchJson, RECORD_BATCH_SIZE, serializeRecord } from './record-batch-format';

export interface BatchTarget {
  databaseId: number;
  companyId: number;
  /** created_at and updated_at of every record written. */
  now: Date;
  /** Leave out records whose phone the database already has (de-duplicating appends). */
  skipExistingPhones?: boolean;
}

const INSERT = `
  WITH inserted AS (
    INSERT INTO user_database_records (database_id, company_id, values, search_text, phone, created_at, updated_at)
    SELECT $1, $2, x.v, x.s, x.p, $3, $3
      FROM jsonb_to_recordset($4::jsonb) AS x(v jsonb, s text, p text)
     WHERE NOT $5 OR x.p IS NULL
        OR NOT EXISTS (SELECT 1 FROM user_database_records r WHERE r.database_id = $1 AND r.phone = x.p)
    RETURNING 1)
  SELECT count(*)::int AS n FROM inserted`;

/**
 * Streams records into PostgreSQL in batches of RECORD_BATCH_SIZE, one INSERT … SELECT FROM
 * jsonb_to_recordset per batch, inside the caller's transaction. One batch is in flight while
 * the next is being built, so parsing and inserting overlap; at most two batches are held.
 */
export class RecordBatchWriter {
  /** Each record as its JSON text (serializeRecord). */
  private batch: string[] = [];
  private inFlight: Promise<void> = Promise.resolve();
  private written = 0;

  constructor(
    private readonly tx: Transaction,
    private readonly target: BatchTarget,
  ) {}

  /** Adds a record; a million of them must not cost a million promises, so this one is synchronous. */
  push(record: StoredRecord): void {
    this.batch.push(serializeRecord(record));
  }

  /** Whether the caller should `await flush()` before pushing more. */
  get isFull(): boolean {
    return this.batch.length >= RECORD_BATCH_SIZE;
  }

  /** Sends the batch once the previous one is written; the next batch is built meanwhile. */
  async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    await this.send(batchJson(batch));
  }

  /**
   * Sends a batch another thread prepared (serializeRecord of each record, joined as a JSON
   * array), after the records pushed so far.
   */
  async writePrepared(json: string): Promise<void> {
    if (this.batch.length > 0) {
      await this.flush();
    }
    await this.send(json);
  }

  /** Waits for the batch in flight, then puts `json` in flight. */
  private async send(json: string): Promise<void> {
    await this.inFlight;
    const insert = this.insert(json);
    // The rejection is observed by the next flush or by finish(); this only keeps Node from
    // reporting it as unhandled in between.
    insert.catch(() => undefined);
    this.inFlight = insert;
  }

  /** Pushes all of `records`, flushing as batches fill, in slices that let requests through. */
  async write(records: Iterable<StoredRecord>): Promise<void> {
    const slicer = new TimeSlicer();
    for (const record of records) {
      await slicer.pause();
      this.push(record);
      if (this.isFull) {
        await this.flush();
      }
    }
  }

  /** Writes what is left and answers how many records were inserted. */
  async finish(): Promise<number> {
    if (this.batch.length > 0) {
      await this.flush();
    }
    await this.inFlight;
    return this.written;
  }

  private async insert(json: string): Promise<void> {
    const rows = await queryRows<{ n: number }>(this.tx, INSERT, [
      this.target.databaseId,
      this.target.companyId,
      this.target.now,
      json,
      this.target.skipExistingPhones === true,
    ]);
    this.written += rows[0].n;
  }
}

/** Opens record batches (the bulk insert of file uploads, push imports and gateway sync). */
@Injectable()
export class RecordBatches {
  open(tx: Transaction, target: BatchTarget): RecordBatchWriter {
    return new RecordBatchWriter(tx, target);
  }
}
