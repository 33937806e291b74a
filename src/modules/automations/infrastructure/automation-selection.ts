import type { EntityManager } from 'typeorm';
import { escapeLike } from '../../../common/persistence/like-pattern';
import type { FilterableColumn } from '../application/ports/automation-databases.port';
import { AutomationFilter, DedupStrategy, TODAY } from '../domain/automation-rules';

export interface SelectionRequest {
  companyId: number;
  databaseId: number;
  automationId: number;
  campaignId: number;
  filters: AutomationFilter[];
  columns: FilterableColumn[];
  /** The run's date in the schedule's zone, `YYYY-MM-DD`: what TODAY means. */
  today: string;
  applyBlockList: boolean;
  dedupStrategy: DedupStrategy;
  dedupCooldownDays: number | null;
  sendLimit: number | null;
  /**
   * The campaigns module's INSERT of the chosen rows as the campaign's contacts
   * (CampaignRuns.contactsInsertSql): the selection never writes that table itself.
   */
  contactsInsertSql: (source: string, campaignIdParam: string, companyIdParam: string) => string;
}

export interface SelectionCounts {
  matched: number;
  skippedByBlockList: number;
  skippedByDedup: number;
  skippedByLimit: number;
  selected: number;
}

/** Bound parameters; every value the user wrote travels as one, never inside the SQL text. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A value as `YYYY-MM-DD` text when it holds a date (ISO, ISO date-time or DD/MM/YYYY, as text
 * columns of pushed imports often do), else NULL. Text, not a date type: a malformed day such
 * as 31/02 must not abort the whole selection.
 */
const DATE_OF = (v: string): string =>
  `(CASE WHEN ${v} ~ '^\\d{4}-\\d{2}-\\d{2}' THEN left(${v}, 10)
         WHEN ${v} ~ '^\\d{1,2}/\\d{1,2}/\\d{4}$'
         THEN split_part(${v}, '/', 3) || '-' || lpad(split_part(${v}, '/', 2), 2, '0') || '-' || lpad(split_part(${v}, '/', 1), 2, '0')
    END)`;
const MONTH_DAY_OF = (v: string): string => `substr(${DATE_OF(v)}, 6, 5)`;
/**
 * The same for a DATE column, whose stored values are always ISO dates or ISO date-times in
 * UTC (value-coercion.ts): plain text functions, no regular expression per record. The
 * month-day expression is exactly the one of the per-database index the index worker builds
 * for DATE columns of large databases (record-indexes.repository.ts), which PostgreSQL then
 * uses for a birthday filter.
 */
const ISO_DATE_OF = (v: string): string => `left(${v}, 10)`;
const ISO_MONTH_DAY_OF = (v: string): string => `substr(${v}, 6, 5)`;
const NUMBER_OF = (v: string): string =>
  `(CASE WHEN ${v} ~ '^-?\\d+(\\.\\d+)?$' THEN (${v})::numeric END)`;

/** Month-day strings that match `today` when the year is ignored: 29 Feb counts on 28 Feb in other years. */
export function monthDaysMatching(today: string): string[] {
  const [year, monthDay] = [Number(today.slice(0, 4)), today.slice(5)];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return monthDay === '02-28' && !leap ? ['02-28', '02-29'] : [monthDay];
}

function filterSql(
  filter: AutomationFilter,
  column: FilterableColumn,
  today: string,
  p: Params,
): string {
  const v = `(r.values->>${p.add(filter.filterId)})`;
  const value = filter.value === TODAY ? today : filter.value;
  const isDate =
    column.dataType === 'DATE' ||
    (column.dataType === 'TEXT' && (filter.ignoreYear || filter.value === TODAY));
  const [dateOf, monthDayOf] =
    column.dataType === 'DATE' ? [ISO_DATE_OF, ISO_MONTH_DAY_OF] : [DATE_OF, MONTH_DAY_OF];
  const isNumber = column.dataType === 'NUMBER';
  switch (filter.operator) {
    case 'isEmpty':
      return `coalesce(btrim(${v}), '') = ''`;
    case 'isNotEmpty':
      return `coalesce(btrim(${v}), '') <> ''`;
    case 'contains':
      return `${v} ILIKE '%' || ${p.add(escapeLike(value))} || '%'`;
    case 'startsWith':
      return `${v} ILIKE ${p.add(escapeLike(value))} || '%'`;
    case 'equals':
    case 'notEquals': {
      const condition = isDate
        ? filter.ignoreYear
          ? `${monthDayOf(v)} = ANY(${p.add(monthDaysMatching(value))}::text[])`
          : `${dateOf(v)} = ${p.add(value)}`
        : isNumber
          ? `${NUMBER_OF(v)} = ${p.add(value)}::numeric`
          : `lower(btrim(${v})) = lower(btrim(${p.add(value)}))`;
      return filter.operator === 'equals' ? condition : `NOT coalesce(${condition}, false)`;
    }
    case 'before':
    case 'after': {
      const op = filter.operator === 'before' ? '<' : '>';
      if (isDate) {
        return filter.ignoreYear
          ? `${monthDayOf(v)} ${op} ${p.add(value.slice(5))}`
          : `${dateOf(v)} ${op} ${p.add(value)}`;
      }
      return isNumber
        ? `${NUMBER_OF(v)} ${op} ${p.add(value)}::numeric`
        : `${v} ${op} ${p.add(value)}`;
    }
  }
}

/**
 * Selects the run's recipients and inserts them as the run's campaign contacts, in one
 * statement: records matching every filter (AND), one per phone, minus the active block
 * list, minus what the de-duplication strategy excludes, cut at the send limit.
 */
export async function selectRecipients(
  manager: EntityManager,
  request: SelectionRequest,
): Promise<SelectionCounts> {
  const p = new Params();
  const database = p.add(request.databaseId);
  const company = p.add(request.companyId);
  const conditions = request.filters.map((filter) => {
    const column = request.columns.find(
      (c) => c.columnName === filter.filterId,
    ) as FilterableColumn;
    return `(${filterSql(filter, column, request.today, p)})`;
  });
  const nameColumn = request.columns.find((c) => c.isNameColumn)?.columnName ?? null;
  const nameSql = nameColumn ? `coalesce(r.values->>${p.add(nameColumn)}, '')` : `''`;
  // Each exclusion is present only when it applies: a NOT EXISTS standing alone becomes an
  // anti-join that reads the sent-log through its (automation_id, phone_number, sent_at) index,
  // where one behind an OR is a subplan that hashes the automation's whole sent-log.
  const notBlocked = request.applyBlockList
    ? `WHERE NOT EXISTS (
         SELECT 1 FROM blocked_contacts b
          WHERE b.company_id = ${company} AND b.phone_number = m.phone AND b.is_active)`
    : '';
  const notSentBefore = dedupExclusion(request, p);
  const sql = `
    WITH matched AS (
      SELECT DISTINCT ON (r.phone) r.id, r.phone, ${nameSql} AS name
        FROM user_database_records r
       WHERE r.database_id = ${database} AND r.company_id = ${company} AND r.phone IS NOT NULL
         ${conditions.map((c) => `AND ${c}`).join('\n         ')}
       ORDER BY r.phone, r.id
    ), unblocked AS (
      SELECT m.* FROM matched m
       ${notBlocked}
    ), fresh AS (
      SELECT u.* FROM unblocked u
       ${notSentBefore}
    ), chosen AS (
      SELECT f.* FROM fresh f ORDER BY f.id LIMIT ${p.add(request.sendLimit)}::bigint
    ), inserted AS (
      ${request.contactsInsertSql('chosen', p.add(request.campaignId), company)}
    )
    SELECT (SELECT count(*) FROM matched)::int AS matched,
           (SELECT count(*) FROM unblocked)::int AS unblocked,
           (SELECT count(*) FROM fresh)::int AS fresh,
           (SELECT count(*) FROM inserted)::int AS selected`;
  const [row] = await manager.query<
    Array<{ matched: number; unblocked: number; fresh: number; selected: number }>
  >(sql, p.values);
  return {
    matched: row.matched,
    skippedByBlockList: row.matched - row.unblocked,
    skippedByDedup: row.unblocked - row.fresh,
    skippedByLimit: row.fresh - row.selected,
    selected: row.selected,
  };
}

/** The WHERE of `fresh`: what the de-duplication strategy leaves out of `unblocked u`. */
function dedupExclusion(request: SelectionRequest, p: Params): string {
  const sentBefore = (): string => `SELECT 1 FROM automation_sent_log l
          WHERE l.automation_id = ${p.add(request.automationId)} AND l.phone_number = u.phone`;
  switch (request.dedupStrategy) {
    case 'NEVER':
      return '';
    case 'ONCE':
      return `WHERE NOT EXISTS (${sentBefore()})`;
    case 'COOLDOWN_DAYS':
      return `WHERE NOT EXISTS (${sentBefore()}
            AND l.sent_at > now() - make_interval(days => ${p.add(request.dedupCooldownDays ?? 0)}::int))`;
  }
}

/** The first matching record's values, for test-send's rendering. */
export async function firstMatchingValues(
  manager: EntityManager,
  request: Pick<SelectionRequest, 'companyId' | 'databaseId' | 'filters' | 'columns' | 'today'>,
): Promise<Record<string, unknown> | null> {
  const p = new Params();
  const conditions = request.filters.map((filter) => {
    const column = request.columns.find(
      (c) => c.columnName === filter.filterId,
    ) as FilterableColumn;
    return `AND (${filterSql(filter, column, request.today, p)})`;
  });
  const rows = await manager.query<Array<{ values: Record<string, unknown> }>>(
    `SELECT r.values FROM user_database_records r
      WHERE r.database_id = ${p.add(request.databaseId)} AND r.company_id = ${p.add(request.companyId)}
        ${conditions.join(' ')}
      ORDER BY r.id LIMIT 1`,
    p.values,
  );
  return rows[0]?.values ?? null;
}
