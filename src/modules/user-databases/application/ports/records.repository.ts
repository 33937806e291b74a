import type { ColumnDefinition } from '../../domain/column';
import type { SearchFilter } from '../../domain/search-text';
import type { StoredRecord } from '../../domain/stored-record';
import type { StoredValue } from '../../domain/value-coercion';
import type { EntityManager } from 'typeorm';
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

export abstract class RecordsRepository {
  abstract page(
    companyId: number,
    databaseId: number,
    query: RecordPageQuery,
  ): Promise<RecordRow[]>;
  /** Matches of a search; without one, the database's rowCount answers instead. */
  abstract countMatching(
    companyId: number,
    databaseId: number,
    search: SearchFilter,
  ): Promise<number>;
  abstract findOne(
    databaseId: number,
    recordId: string,
    manager?: EntityManager,
  ): Promise<RecordRow | null>;
  abstract insertOne(
    manager: EntityManager,
    target: { databaseId: number; companyId: number },
    record: StoredRecord,
    now: Date,
  ): Promise<RecordRow>;
  abstract update(
    manager: EntityManager,
    databaseId: number,
    recordId: string,
    record: StoredRecord,
    now: Date,
  ): Promise<RecordRow>;
  abstract delete(manager: EntityManager, databaseId: number, recordId: string): Promise<boolean>;
  abstract deleteAll(manager: EntityManager, databaseId: number): Promise<number>;
  /**
   * The columns of the database and the values of its first record whose phone column holds
   * `phone`: one probe of (database_id, phone, id). Null when the database is not the company's.
   */
  abstract valuesByPhone(
    companyId: number,
    databaseId: number,
    phone: string,
  ): Promise<{ columns: ColumnDefinition[]; values: Record<string, StoredValue> | null } | null>;
}
