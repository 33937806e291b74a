/** docs/API-RULES.md §6: the data types a column may have. */
export const DATA_TYPES = ['TEXT', 'NUMBER', 'DATE', 'BOOLEAN', 'PHONE', 'EMAIL'] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** A column of a user database, as stored (user_databases.columns) and as returned. */
export interface ColumnDefinition {
  /** Derived from the original name: lower-case ASCII snake_case, unique in the database. */
  columnName: string;
  displayName: string;
  dataType: DataType;
  isPhoneColumn: boolean;
  isNameColumn: boolean;
  /** 1-based, in the order of the file or request; never changes once assigned. */
  position: number;
}

/** The column a new database or an append asks for, before names and positions are assigned. */
export interface ColumnRequest {
  originalName: string;
  displayName?: string;
  dataType: DataType;
  isPhoneColumn: boolean;
}

export const MAX_COLUMNS = 100;
export const MAX_COLUMN_NAME_LENGTH = 50;

/**
 * Names the record list also sorts by (sortBy=id, created_at, updated_at): a column deriving
 * to one of them gets a suffix, so that sortBy never has two meanings.
 */
export const RESERVED_COLUMN_NAMES: ReadonlySet<string> = new Set([
  'id',
  'created_at',
  'updated_at',
]);

/** What a stored columnName looks like; also the guard before a name reaches index DDL. */
export const COLUMN_NAME_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

/**
 * Column names that mark the contact's name column (isNameColumn), compared with the derived
 * columnName. Among the TEXT columns other than the phone column, the one whose name comes
 * first in this list is the name column; a database may have none.
 */
export const NAME_COLUMN_NAMES: readonly string[] = [
  'nome',
  'name',
  'nome_completo',
  'full_name',
  'fullname',
  'nome_cliente',
  'nome_do_cliente',
  'nome_contato',
  'contact_name',
  'cliente',
  'contato',
];

/**
 * Column names that mark a phone column, in order of preference: the generic push import
 * takes the first of these among its keys, the analysis prefers these headers.
 */
export const PHONE_COLUMN_NAMES: readonly string[] = [
  'phone_number',
  'phone',
  'telefone',
  'celular',
  'whatsapp',
  'whats_app',
  'numero_whatsapp',
  'telefone_celular',
  'numero_telefone',
  'mobile',
  'fone',
  'tel',
  'cel',
  'whats',
  'numero',
  'number',
];

/** Removes accents (combining marks after NFD); leaves ASCII untouched without the cost of normalize. */
export function foldAccents(text: string): string {
  return isAscii(text) ? text : text.normalize('NFD').replace(/\p{M}/gu, '');
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    if (text.charCodeAt(i) > 0x7f) {
      return false;
    }
  }
  return true;
}

/** "Nome Completo" → nome_completo, "phoneNumber" → phone_number, "Endereço (rua)" → endereco_rua. */
export function baseColumnName(originalName: string): string {
  const snake = foldAccents(originalName)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  // {columnName} template variables need a leading letter.
  const named = snake === '' ? 'coluna' : /^[0-9]/.test(snake) ? `c_${snake}` : snake;
  return named.slice(0, MAX_COLUMN_NAME_LENGTH).replace(/_+$/, '');
}

/**
 * columnNames for `originalNames`, in order, unique among themselves, the reserved names and
 * `taken` (the columns a database already has): repeats get _2, _3, …
 */
export function deriveColumnNames(
  originalNames: readonly string[],
  taken: Iterable<string> = [],
): string[] {
  const used = new Set<string>([...RESERVED_COLUMN_NAMES, ...taken]);
  return originalNames.map((original) => {
    const base = baseColumnName(original);
    let name = base;
    for (let n = 2; used.has(name); n += 1) {
      name = `${base}_${n}`;
    }
    used.add(name);
    return name;
  });
}

/**
 * Columns for a new database: names derived, positions from `firstPosition`, the phone column
 * typed PHONE and the name column chosen (see NAME_COLUMN_NAMES).
 */
export function defineColumns(
  requests: readonly ColumnRequest[],
  existing: readonly ColumnDefinition[] = [],
): ColumnDefinition[] {
  const names = deriveColumnNames(
    requests.map((r) => r.originalName),
    existing.map((c) => c.columnName),
  );
  const firstPosition = existing.reduce((max, c) => Math.max(max, c.position), 0) + 1;
  const columns = requests.map((request, i): ColumnDefinition => ({
    columnName: names[i],
    displayName: (request.displayName ?? request.originalName).trim() || names[i],
    dataType: request.isPhoneColumn ? 'PHONE' : request.dataType,
    isPhoneColumn: request.isPhoneColumn,
    isNameColumn: false,
    position: firstPosition + i,
  }));
  if (!existing.some((c) => c.isNameColumn)) {
    const nameColumn = chooseNameColumn(columns);
    if (nameColumn) {
      nameColumn.isNameColumn = true;
    }
  }
  return columns;
}

function chooseNameColumn(columns: ColumnDefinition[]): ColumnDefinition | undefined {
  const candidates = columns.filter((c) => !c.isPhoneColumn && c.dataType === 'TEXT');
  for (const wanted of NAME_COLUMN_NAMES) {
    const match = candidates.find((c) => c.columnName === wanted);
    if (match) {
      return match;
    }
  }
  return undefined;
}

/** The preference rank of a phone-like column name, or -1 when it does not look like one. */
export function phoneNameRank(columnName: string): number {
  return PHONE_COLUMN_NAMES.indexOf(columnName);
}
