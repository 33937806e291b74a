import type { StoredRecord } from '../domain/stored-record';

/** Rows per INSERT: about 1 MB of JSON; measured as the sweet spot with jsonb_to_recordset. */
export const RECORD_BATCH_SIZE = 5_000;

/**
 * A record as one element of the JSON array the batch INSERT reads with jsonb_to_recordset
 * (v: values, s: search text, p: phone). A pushed record's objects die young this way, and a
 * batch in waiting holds about 150 bytes a record instead of a few hundred in objects.
 */
export function serializeRecord(record: StoredRecord): string {
  return JSON.stringify({ v: record.values, s: record.searchText, p: record.phone });
}

/** The batch INSERT's parameter: serialized records as one JSON array. */
export function batchJson(serializedRecords: readonly string[]): string {
  return `[${serializedRecords.join(',')}]`;
}
