import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryRows } from '../../../database/query-rows';
import type { StoredRecord } from '../domain/stored-record';

/**
 * One record per phone in the SYSTEM database (unique (database_id, phone) WHERE is_system).
 * An earlier send recorded late never overwrites a later one; a send without a name keeps
 * the name already known.
 */
const UPSERT_MANY = `
  INSERT INTO user_database_records AS r
         (database_id, company_id, values, search_text, phone, is_system, created_at, updated_at)
  SELECT $1, $2, u.values::jsonb, u.search_text, u.phone, true, u.at, u.at
    FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS u(values, search_text, phone, at)
  ON CONFLICT (database_id, phone) WHERE is_system DO UPDATE
     SET values = r.values || EXCLUDED.values,
         search_text = CASE WHEN EXCLUDED.values ? 'name' THEN EXCLUDED.search_text ELSE r.search_text END,
         updated_at = EXCLUDED.updated_at
   WHERE coalesce(r.values->>'last_sent_at', '') <= EXCLUDED.values->>'last_sent_at'
  RETURNING (xmax = 0) AS inserted`;

@Injectable()
export class SystemContactsRepository {
  /** Upserts records with distinct phones; answers how many phones were new to the database. */
  async upsertMany(
    tx: Transaction,
    target: { databaseId: number; companyId: number },
    records: ReadonlyArray<{ record: StoredRecord; at: Date }>,
  ): Promise<number> {
    const rows = await queryRows<{ inserted: boolean }>(tx, UPSERT_MANY, [
      target.databaseId,
      target.companyId,
      records.map(({ record }) => JSON.stringify(record.values)),
      records.map(({ record }) => record.searchText),
      records.map(({ record }) => record.phone),
      records.map(({ at }) => at),
    ]);
    return rows.filter((row) => row.inserted).length;
  }

  async countNewRecords(tx: Transaction, databaseId: number, added: number): Promise<void> {
    await execute(tx, `UPDATE user_databases SET row_count = row_count + $2 WHERE id = $1`, [
      databaseId,
      added,
    ]);
  }
}
