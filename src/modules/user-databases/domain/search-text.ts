import { ColumnDefinition, DataType, foldAccents } from './column';
import type { StoredValue } from './value-coercion';
import { likeContaining } from '../../../common/persistence/like-pattern';

/** The columns `search` looks in (docs/API-RULES.md §6: "the id and all text columns"). */
export const SEARCHABLE_TYPES: ReadonlySet<DataType> = new Set<DataType>([
  'TEXT',
  'PHONE',
  'EMAIL',
]);

/** Between values, so that a search never matches across two columns. Search terms cannot contain it. */
export const SEARCH_SEPARATOR = '\u001f';
const PHONE_LIKE = /^[\d\s+().\-/]+$/;
export const MAX_SEARCH_LENGTH = 100;

/** Lower case without accents: what search_text holds and what a search term is compared as. */
export function foldForSearch(text: string): string {
  return foldAccents(text).toLowerCase();
}

/** search_text of a record: its searchable values, folded, in column order. */
export function searchTextOf(
  columns: readonly ColumnDefinition[],
  values: Readonly<Record<string, StoredValue>>,
): string {
  const parts: string[] = [];
  for (const column of columns) {
    const value = values[column.columnName];
    if (typeof value === 'string' && SEARCHABLE_TYPES.has(column.dataType)) {
      parts.push(foldForSearch(value));
    }
  }
  return parts.join(SEARCH_SEPARATOR);
}

/** Control characters (the separator among them) cannot appear in a term. */
function stripControlCharacters(term: string): string {
  let out = '';
  for (const char of term) {
    out += char.charCodeAt(0) < 0x20 ? ' ' : char;
  }
  return out;
}

export interface SearchFilter {
  /** LIKE pattern over search_text, with %, _ and \ escaped. */
  pattern: string;
  /** The record id the term names, when it is a whole number. */
  id: string | null;
}

/**
 * How a `search` term is matched: case- and accent-insensitive substring of search_text, or
 * the record id. A term written like a phone number ("(11) 98765-4321") is compared by its
 * digits, which is how phones are stored. Null for a blank term.
 */
export function searchFilterOf(term: string): SearchFilter | null {
  const cleaned = stripControlCharacters(term).trim();
  if (cleaned === '') {
    return null;
  }
  const digits = cleaned.replace(/\D/g, '');
  const text = PHONE_LIKE.test(cleaned) && digits.length > 0 ? digits : foldForSearch(cleaned);
  return {
    pattern: likeContaining(text),
    id: /^\d{1,18}$/.test(cleaned) ? cleaned : null,
  };
}
