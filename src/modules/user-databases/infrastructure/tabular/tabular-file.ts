/** Data rows a file may hold (docs/API-RULES.md §6), besides its header row. */
export const MAX_FILE_ROWS = 1_000_000;
/** Cells in one row; wider rows are refused rather than read. */
export const MAX_ROW_CELLS = 1_000;

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

export function isBlankRow(cells: readonly string[]): boolean {
  return cells.every((cell) => cell === '');
}
