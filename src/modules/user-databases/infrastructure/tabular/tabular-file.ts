import type { TabularFile, TabularKind } from '../../application/ports/tabular-files';

export type { TabularFile, TabularKind };

/** Data rows a file may hold (docs/API-RULES.md §6), besides its header row. */
export const MAX_FILE_ROWS = 1_000_000;
/** Cells in one row; wider rows are refused rather than read. */
export const MAX_ROW_CELLS = 1_000;

export function isBlankRow(cells: readonly string[]): boolean {
  return cells.every((cell) => cell === '');
}
