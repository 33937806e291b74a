export type TabularKind = 'CSV' | 'XLSX';

/**
 * A spooled upload read as rows of text cells. `rows()` yields the non-empty rows, the
 * header first, streamed from disk, and fails with UnreadableFileError past MAX_FILE_ROWS.
 */
export interface TabularFile {
  kind: TabularKind;
  /** CSV only: utf-8 or windows-1252 (Latin-1). */
  encoding: string | null;
  /** CSV only. */
  delimiter: string | null;
  rows(): AsyncGenerator<string[]>;
}

/** Opens a spooled upload as a tabular file (CSV or XLSX, told apart by its bytes). */
export abstract class TabularFiles {
  abstract open(path: string, declaredName?: string): Promise<TabularFile>;
}
