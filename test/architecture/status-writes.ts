import * as ts from 'typescript';

/**
 * Finds the statuses SQL writes as literals, so that lifecycles.spec.ts can prove every status
 * a statement writes comes from a transition table. It reads the SQL a source file holds in its
 * string and template literals (a `${…}` counts as a value computed in TypeScript, never as a
 * literal), and the status-like columns from the migrations' column definitions.
 */

/** A column definition (`status varchar(20)`) whose name says it holds a status or a state. */
const STATUS_COLUMN_DEFINITION =
  /\b(status|state|\w+_status|\w+state)\s+(?:varchar|character varying|text|integer|smallint)\b/gi;

/** The status-like columns the migrations create: status, state, *_status, *state. */
export function statusLikeColumns(migrationSources: readonly string[]): string[] {
  const names = migrationSources.flatMap((source) =>
    [...source.matchAll(STATUS_COLUMN_DEFINITION)].map((match) => match[1].toLowerCase()),
  );
  return [...new Set(names)].sort();
}

/**
 * The text of every string and template literal of a TypeScript source. Each `${…}` stands as
 * `$ts` (a value computed in TypeScript), or with `substitutions: 'as written'` as its source.
 */
export function sqlTextsOf(
  fileName: string,
  source: string,
  substitutions: 'as values' | 'as written' = 'as values',
): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const shown = (expression: ts.Expression): string =>
    substitutions === 'as values' ? '$ts' : `\${${expression.getText(file)}}`;
  const texts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      texts.push(node.text);
    } else if (ts.isTemplateExpression(node)) {
      texts.push(
        node.head.text +
          node.templateSpans.map((span) => shown(span.expression) + span.literal.text).join(''),
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return texts;
}

/** A column and the SQL expression a statement writes into it. */
interface Write {
  column: string;
  value: string;
}

/** The writes of `sql` that put a literal into one of `columns`, as `column = value`. */
export function literalStatusWrites(sql: string, columns: readonly string[]): string[] {
  const isStatusColumn = (name: string): boolean =>
    columns.includes(name.replace(/^\w+\./, '').toLowerCase());
  return [...assignments(sql), ...insertedValues(sql)]
    .filter(({ column, value }) => isStatusColumn(column) && writesLiteral(value))
    .map(({ column, value }) => `${column} = ${value.trim().replace(/\s+/g, ' ')}`);
}

/** The `column = value` pairs of every SET (of an UPDATE or an ON CONFLICT … DO UPDATE). */
function assignments(sql: string): Write[] {
  return [...sql.matchAll(/\bSET\s/gi)].flatMap((match) => {
    const clause = upToTopLevel(
      sql.slice((match.index ?? 0) + match[0].length),
      /^(WHERE|RETURNING|FROM)\b/i,
    );
    return splitTopLevel(clause).flatMap((assignment) => {
      const parts = /^\s*([\w.]+)\s*=\s*([\s\S]*)$/.exec(assignment);
      return parts ? [{ column: parts[1], value: parts[2] }] : [];
    });
  });
}

/** A value that is a literal, or a CASE that yields one (`THEN 'X'`, `ELSE 'X'`). */
function writesLiteral(value: string): boolean {
  return /^\s*'[^']*'(::\w+)?\s*$/.test(value) || /\b(THEN|ELSE)\s+'[^']*'/i.test(value);
}

/** The column and value of each column of each INSERT … VALUES (…) or INSERT … SELECT. */
function insertedValues(sql: string): Write[] {
  const insert = /\bINSERT\s+INTO\s+[\w.]+\s*\(([^)]*)\)\s*(VALUES|SELECT)\b/gi;
  return [...sql.matchAll(insert)].flatMap((match) => {
    const columns = match[1].split(',').map((column) => column.trim());
    const rest = sql.slice((match.index ?? 0) + match[0].length);
    const rows =
      match[2].toUpperCase() === 'SELECT'
        ? [upToTopLevel(rest, /^(FROM|WHERE|ON|RETURNING)\b/i)]
        : valueRows(rest);
    return rows.flatMap((row) =>
      splitTopLevel(row).map((value, i) => ({ column: columns[i] ?? '', value })),
    );
  });
}

/** The tuples of a VALUES list: `($1, 'A'), ($2, 'B')`. */
function valueRows(text: string): string[] {
  const rows: string[] = [];
  let rest = text;
  while (/^\s*\(/.test(rest)) {
    const start = rest.indexOf('(') + 1;
    const row = upToTopLevel(rest.slice(start), /^\)/);
    rows.push(row);
    rest = rest.slice(start + row.length + 1).replace(/^\s*,/, '');
  }
  return rows;
}

/**
 * `text` up to where `stop` matches outside parentheses and quotes, or to the parenthesis that
 * closes what encloses it (or all of it); a stop that is a word must start one.
 */
function upToTopLevel(text: string, stop: RegExp): string {
  let end = text.length;
  walkTopLevel(text, (i) => {
    const match = stop.exec(text.slice(i));
    const startsWord = match !== null && /^\w/.test(match[0]);
    if (text[i] === ')' || (match && !(startsWord && i > 0 && /\w/.test(text[i - 1])))) {
      end = i;
      return true;
    }
    return false;
  });
  return text.slice(0, end);
}

/** `text` cut at its commas outside parentheses and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  walkTopLevel(text, (i) => {
    if (text[i] === ',') {
      parts.push(text.slice(from, i));
      from = i + 1;
    }
    return false;
  });
  return [...parts, text.slice(from)];
}

/** Calls `visit` at each position outside parentheses and quotes until it answers true. */
function walkTopLevel(text: string, visit: (i: number) => boolean): void {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      quoted = char !== "'";
    } else if (char === "'") {
      quoted = true;
    } else if (depth === 0 && visit(i)) {
      return;
    } else if (char === '(') {
      depth++;
    } else if (char === ')') {
      depth--;
    }
  }
}
