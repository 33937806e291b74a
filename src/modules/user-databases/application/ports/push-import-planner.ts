import type { ColumnDefinition } from '../../domain/column';
import type { ImportKind, PushImportTally } from '../../domain/push-import-plan';

/** What the planner needs: the rows as the JSON text of an array, and the target's columns. */
export interface PushImportPlanInput {
  kind: ImportKind;
  rowsJson: string;
  dedupe: boolean;
  defaultCountryCode: number;
  /** The columns of the database the rows are appended to; absent for a new database. */
  existingColumns?: readonly ColumnDefinition[];
}

/** An import being planned: its columns at once, its records batch by batch. */
export interface PlannedPushImport {
  columns: ColumnDefinition[];
  addedColumns: ColumnDefinition[];
  /** The records in batches, each ready for RecordBatchWriter.writePrepared. */
  batches: AsyncIterable<string>;
  /** The counts, complete once `batches` has been read to the end. */
  tally(): PushImportTally;
}

/**
 * Turns pushed rows into records away from the thread that serves requests: parsing,
 * phone normalization and serialization cost about 20 µs a row, a second for 50,000 rows.
 */
export abstract class PushImportPlanner {
  /** Rejects with the domain's InvalidInputError when the rows' columns cannot be imported. */
  abstract plan(input: PushImportPlanInput): Promise<PlannedPushImport>;
}
