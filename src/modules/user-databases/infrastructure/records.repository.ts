import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { onReadPool, queryRows } from '../../../database/query-rows';
import type { ColumnDefinition } from '../domain/column';
import type { RecordPageQuery, RecordRow, RecordSort, SortDirection } from '../domain/record-page';
import type { SearchFilter } from '../domain/search-text';
import type { StoredRecord } from '../domain/stored-record';
import type { StoredValue } from '../domain/value-coercion';

const RECORD_COLUMNS = `id, values, created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * The ORDER BY of a page. Column keys are bound parameters ($n), never spliced into the SQL;
 * the expressions equal the per-database sort indexes' (see RecordIndexesRepository), so that
 * the planner uses them once they exist.
 */
function orderBy(sort: RecordSort, direction: SortDirection, keyParam: number): string {
  const dir = direction === 'ASC' ? 'ASC' : 'DESC';
  switch (sort.kind) {
    case 'id':
      return `id ${dir}`;
    case 'created_at':
      return `created_at ${dir}, id ${dir}`;
    case 'updated_at':
      return `updated_at ${dir}, id ${dir}`;
    case 'column':
      return sort.numeric
        ? `((values->>$${keyParam})::numeric) ${dir}, id ${dir}`
        : `(values->>$${keyParam}) ${dir}, id ${dir}`;
  }
}

function searchCondition(
  search: SearchFilter,
  firstParam: number,
): { sql: string; params: unknown[] } {
  return search.id === null
    ? { sql: `search_text LIKE $${firstParam}`, params: [search.pattern] }
    : {
        sql: `(search_text LIKE $${firstParam} OR id = $${firstParam + 1}::bigint)`,
        params: [search.pattern, search.id],
      };
}

@Injectable()
export class RecordsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async page(companyId: number, databaseId: number, query: RecordPageQuery): Promise<RecordRow[]> {
    const params: unknown[] = [databaseId, companyId, query.offset, query.limit];
    let where = `database_id = $1 AND company_id = $2`;
    if (query.search) {
      const condition = searchCondition(query.search, params.length + 1);
      where += ` AND ${condition.sql}`;
      params.push(...condition.params);
    }
    if (query.sort.kind === 'column') {
      params.push(query.sort.columnName);
    }
    return onReadPool(this.dataSource, (reader) =>
      queryRows<RecordRow>(
        reader,
        `SELECT ${RECORD_COLUMNS} FROM user_database_records WHERE ${where}
          ORDER BY ${orderBy(query.sort, query.direction, params.length)} OFFSET $3 LIMIT $4`,
        params,
      ),
    );
  }

  /** Matches of a search; without one, the database's rowCount answers instead. */
  async countMatching(
    companyId: number,
    databaseId: number,
    search: SearchFilter,
  ): Promise<number> {
    const condition = searchCondition(search, 3);
    const rows = await onReadPool(this.dataSource, (reader) =>
      queryRows<{ n: number }>(
        reader,
        `SELECT count(*)::int AS n FROM user_database_records
          WHERE database_id = $1 AND company_id = $2 AND ${condition.sql}`,
        [databaseId, companyId, ...condition.params],
      ),
    );
    return rows[0].n;
  }

  async findOne(databaseId: number, recordId: string, tx?: Transaction): Promise<RecordRow | null> {
    const rows = await queryRows<RecordRow>(
      tx ?? this.dataSource,
      `SELECT ${RECORD_COLUMNS} FROM user_database_records WHERE id = $1 AND database_id = $2
        ${tx ? 'FOR UPDATE' : ''}`,
      [recordId, databaseId],
    );
    return rows[0] ?? null;
  }

  async insertOne(
    tx: Transaction,
    target: { databaseId: number; companyId: number },
    record: StoredRecord,
    now: Date,
  ): Promise<RecordRow> {
    const rows = await queryRows<RecordRow>(
      tx,
      `INSERT INTO user_database_records (database_id, company_id, values, search_text, phone, created_at, updated_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $6) RETURNING ${RECORD_COLUMNS}`,
      [
        target.databaseId,
        target.companyId,
        JSON.stringify(record.values),
        record.searchText,
        record.phone,
        now,
      ],
    );
    return rows[0];
  }

  async update(
    tx: Transaction,
    databaseId: number,
    recordId: string,
    record: StoredRecord,
    now: Date,
  ): Promise<RecordRow> {
    const rows = await queryRows<RecordRow>(
      tx,
      `UPDATE user_database_records SET values = $3::jsonb, search_text = $4, phone = $5, updated_at = $6
        WHERE id = $1 AND database_id = $2 RETURNING ${RECORD_COLUMNS}`,
      [recordId, databaseId, JSON.stringify(record.values), record.searchText, record.phone, now],
    );
    return rows[0];
  }

  async delete(tx: Transaction, databaseId: number, recordId: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      tx,
      `DELETE FROM user_database_records WHERE id = $1 AND database_id = $2 RETURNING id`,
      [recordId, databaseId],
    );
    return rows.length > 0;
  }

  async deleteAll(tx: Transaction, databaseId: number): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      tx,
      `WITH gone AS (DELETE FROM user_database_records WHERE database_id = $1 RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [databaseId],
    );
    return rows[0].n;
  }

  /**
   * The columns of the database and the values of its first record whose phone column holds
   * `phone`: one probe of (database_id, phone, id). Null when the database is not the company's.
   */
  async valuesByPhone(
    companyId: number,
    databaseId: number,
    phone: string,
  ): Promise<{ columns: ColumnDefinition[]; values: Record<string, StoredValue> | null } | null> {
    const rows = await queryRows<{
      columns: ColumnDefinition[];
      values: Record<string, StoredValue> | null;
    }>(
      this.dataSource,
      `SELECT d.columns, r.values
         FROM user_databases d
         LEFT JOIN LATERAL (SELECT values FROM user_database_records
                             WHERE database_id = d.id AND phone = $3 ORDER BY id LIMIT 1) r ON true
        WHERE d.id = $1 AND d.company_id = $2`,
      [databaseId, companyId, phone],
    );
    return rows[0] ?? null;
  }
}
