import type { SearchFilter } from './search-text';
import type { StoredValue } from './value-coercion';

export interface RecordPageQuery {
  sort: RecordSort;
  direction: SortDirection;
  search: SearchFilter | null;
  offset: number;
  limit: number;
}

export interface RecordRow {
  id: string;
  values: Record<string, StoredValue>;
  createdAt: Date;
  updatedAt: Date;
}

/** What a page is ordered by; built from a whitelist, never from the caller's text. */
export type RecordSort =
  | { kind: 'id' }
  | { kind: 'created_at' }
  | { kind: 'updated_at' }
  | { kind: 'column'; columnName: string; numeric: boolean };

export type SortDirection = 'ASC' | 'DESC';
