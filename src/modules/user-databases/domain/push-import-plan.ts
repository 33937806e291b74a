import { InvalidInputError } from '../../../common/errors/domain-error';
import {
  baseColumnName,
  ColumnDefinition,
  defineColumns,
  MAX_COLUMNS,
  phoneNameRank,
} from './column';
import { StoredRecord, storedRecordOf } from './stored-record';
import { coerceValue, StoredValue } from './value-coercion';

/** What the pushed rows are: contacts {phoneNumber, name, …} or generic rows. */
export type ImportKind = 'CONTACTS' | 'GENERIC';

/** One row that an import could not take, and why (the first ones are kept). */
export interface RowError {
  /** 0-based index in the request's contacts/rows array. */
  row: number;
  reason: string;
}

/** How many invalid rows a summary names, with their reason; the count covers all of them. */
export const MAX_REPORTED_ROW_ERRORS = 20;
/** docs/API-RULES.md §6: rows per push-import request. */
export const MAX_PUSH_ROWS = 100_000;
/** The key every item of POST …/imports/contacts carries. */
export const CONTACTS_PHONE_KEY = 'phoneNumber';

export interface PushImportInput {
  kind: ImportKind;
  rows: readonly unknown[];
  dedupe: boolean;
  defaultCountryCode: number;
  /** The columns of the database the rows are appended to; absent for a new database. */
  existingColumns?: readonly ColumnDefinition[];
}

type Row = Record<string, unknown>;

/**
 * Keys never taken as columns: the HTTP layer has always dropped them from bodies (prototype
 * pollution), and rows now reach the import unwalked.
 */
const IGNORED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The columns of an import: decided from every row's keys before any record is built. */
export interface PushColumnsPlan {
  /** Every column of the database after the import (existing ones first, unchanged). */
  columns: ColumnDefinition[];
  /** Columns the import adds to an existing database. */
  addedColumns: ColumnDefinition[];
  phoneKey: string;
  /** The column each key of a row lands in. */
  columnOf: ReadonlyMap<string, ColumnDefinition>;
}

/** What an import counted while it built its records. */
export interface PushImportTally {
  totalRows: number;
  /** Records built: the valid rows, less the repeats. */
  recordCount: number;
  /** Repeated phones within the request (the first is kept). */
  duplicatesRemoved: number;
  invalidRows: number;
  rowErrors: RowError[];
}

/**
 * Columns come from the rows' keys in order of first appearance (TEXT, the phone key PHONE);
 * appended rows map keys onto the database's columns by derived name and the phone key onto
 * its phone column, and new keys become new columns.
 */
export function planPushColumns(
  input: Pick<PushImportInput, 'kind' | 'rows' | 'existingColumns'>,
): PushColumnsPlan {
  const keys = keysInOrder(input.rows);
  const phoneKey = phoneKeyOf(input.kind, keys);
  const existing = input.existingColumns ?? [];
  const mapping = mapKeys(keys, phoneKey, existing);
  const columns = [...existing, ...mapping.added];
  if (columns.length > MAX_COLUMNS) {
    throw new InvalidInputError(
      'IMPORT.TOO_MANY_COLUMNS',
      `As linhas têm colunas demais: no máximo ${MAX_COLUMNS} por base`,
    );
  }
  return { columns, addedColumns: mapping.added, phoneKey, columnOf: mapping.columnOf };
}

/**
 * The records of the rows, one at a time, counting into `tally`. A row is invalid when it is
 * not an object, has no valid phone, or has a value its column cannot hold; with `dedupe`, a
 * phone seen before in the rows is left out.
 */
export function* pushRecords(
  input: Pick<PushImportInput, 'rows' | 'dedupe' | 'defaultCountryCode'>,
  plan: PushColumnsPlan,
  tally: PushImportTally,
): Generator<StoredRecord> {
  const seenPhones = new Set<string>();
  for (let index = 0; index < input.rows.length; index += 1) {
    const outcome = recordOf(input.rows[index], plan, input.defaultCountryCode);
    if ('reason' in outcome) {
      tally.invalidRows += 1;
      if (tally.rowErrors.length < MAX_REPORTED_ROW_ERRORS) {
        tally.rowErrors.push({ row: index, reason: outcome.reason });
      }
      continue;
    }
    const phone = outcome.record.phone as string;
    if (input.dedupe && seenPhones.has(phone)) {
      tally.duplicatesRemoved += 1;
      continue;
    }
    seenPhones.add(phone);
    tally.recordCount += 1;
    yield outcome.record;
  }
}

/** A tally before the first row. */
export function emptyTally(totalRows: number): PushImportTally {
  return { totalRows, recordCount: 0, duplicatesRemoved: 0, invalidRows: 0, rowErrors: [] };
}

function keysInOrder(rows: readonly unknown[]): string[] {
  const keys = new Set<string>();
  for (const row of rows) {
    if (isRow(row)) {
      for (const key of Object.keys(row)) {
        if (!IGNORED_KEYS.has(key)) {
          keys.add(key);
        }
      }
      if (keys.size > MAX_COLUMNS) {
        break;
      }
    }
  }
  return [...keys];
}

function phoneKeyOf(kind: ImportKind, keys: readonly string[]): string {
  if (kind === 'CONTACTS') {
    return CONTACTS_PHONE_KEY;
  }
  let best: { key: string; rank: number } | null = null;
  for (const key of keys) {
    const rank = phoneNameRank(baseColumnName(key));
    if (rank >= 0 && (best === null || rank < best.rank)) {
      best = { key, rank };
    }
  }
  if (!best) {
    throw new InvalidInputError(
      'IMPORT.NO_PHONE_COLUMN',
      'Nenhuma coluna de telefone nas linhas: use uma chave como phone, phoneNumber ou telefone',
    );
  }
  return best.key;
}

function mapKeys(
  keys: readonly string[],
  phoneKey: string,
  existing: readonly ColumnDefinition[],
): { added: ColumnDefinition[]; columnOf: Map<string, ColumnDefinition> } {
  const columnOf = new Map<string, ColumnDefinition>();
  const claimed = new Set<string>();
  const existingPhone = existing.find((c) => c.isPhoneColumn);
  if (existing.length > 0 && !existingPhone) {
    throw new InvalidInputError(
      'IMPORT.NO_PHONE_COLUMN',
      'A base de destino não tem coluna de telefone',
    );
  }
  if (existingPhone) {
    columnOf.set(phoneKey, existingPhone);
    claimed.add(existingPhone.columnName);
  }
  const newKeys: string[] = [];
  for (const key of keys.includes(phoneKey) ? keys : [phoneKey, ...keys]) {
    if (columnOf.has(key)) {
      continue;
    }
    const match = existing.find((c) => c.columnName === baseColumnName(key));
    if (match && !claimed.has(match.columnName)) {
      columnOf.set(key, match);
      claimed.add(match.columnName);
    } else {
      newKeys.push(key);
    }
  }
  const added = defineColumns(
    newKeys.map((key) => ({
      originalName: key,
      dataType: 'TEXT' as const,
      isPhoneColumn: key === phoneKey,
    })),
    existing,
  );
  newKeys.forEach((key, i) => columnOf.set(key, added[i]));
  return { added, columnOf };
}

function recordOf(
  row: unknown,
  { phoneKey, columnOf, columns }: PushColumnsPlan,
  defaultCountryCode: number,
): { record: StoredRecord } | { reason: string } {
  if (!isRow(row)) {
    return { reason: 'a linha deve ser um objeto JSON' };
  }
  const rawPhone = row[phoneKey];
  if (rawPhone === undefined || rawPhone === null || rawPhone === '') {
    return { reason: `${phoneKey} é obrigatório` };
  }
  const values: Record<string, StoredValue | null> = {};
  for (const [key, raw] of Object.entries(row)) {
    if (IGNORED_KEYS.has(key)) {
      continue;
    }
    const column = columnOf.get(key);
    if (!column) {
      return { reason: `${key}: coluna a mais do que o limite de ${MAX_COLUMNS}` };
    }
    const coerced = coerceValue(column, raw, defaultCountryCode, 'lenient');
    if (!coerced.ok) {
      return {
        reason: `${key}: ${coerced.reason}${column.isPhoneColumn ? ` (${describe(raw)})` : ''}`,
      };
    }
    values[column.columnName] = coerced.value;
  }
  const record = storedRecordOf(columns, values);
  return record.phone === null ? { reason: `${phoneKey} é obrigatório` } : { record };
}

function describe(raw: unknown): string {
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  return `"${text.slice(0, 40)}"`;
}
