import { TransitionTable } from '../state/transition-table';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * A key is born IN_PROGRESS with its first request and becomes DONE with the stored answer;
 * one that never completes is deleted (or, abandoned, taken over after a while).
 */
const IDEMPOTENCY_KEY_LIFECYCLE = new TransitionTable<'IN_PROGRESS' | 'DONE', 'complete'>(
  'IDEMPOTENCY_KEY',
  { complete: { IN_PROGRESS: 'DONE' } },
);
const KEY_MOVE = { complete: IDEMPOTENCY_KEY_LIFECYCLE.sql('complete') };
import { queryRows } from '../../database/query-rows';

/** How long a key remembers its response. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
/** A request still marked running after this long died with its process: it may run again. */
const ABANDONED_AFTER_MINUTES = 10;

export type KeyClaim =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; status: number; body: unknown }
  | { outcome: 'in_progress' }
  | { outcome: 'mismatch' };

/** The idempotency_keys table: one row per company and key. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Claims the key for this request, or says what the earlier request with it left. */
  async claim(companyId: number, key: string, fingerprint: string): Promise<KeyClaim> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys
        WHERE company_id = $1 AND idempotency_key = $2
          AND (created_at < now() - make_interval(hours => $3)
               OR (status = 'IN_PROGRESS' AND created_at < now() - make_interval(mins => $4)))`,
      [companyId, key, IDEMPOTENCY_WINDOW_HOURS, ABANDONED_AFTER_MINUTES],
    );
    const claimed = await queryRows<{ key: string }>(
      this.dataSource,
      `INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status)
       VALUES ($1, $2, $3, ${KEY_MOVE.complete.from})
       ON CONFLICT (company_id, idempotency_key) DO NOTHING
       RETURNING idempotency_key AS key`,
      [companyId, key, fingerprint],
    );
    if (claimed.length > 0) {
      return { outcome: 'claimed' };
    }
    const rows = await queryRows<{
      fingerprint: string;
      status: string;
      responseStatus: number | null;
      responseBody: unknown;
    }>(
      this.dataSource,
      `SELECT fingerprint, status, response_status AS "responseStatus", response_body AS "responseBody"
         FROM idempotency_keys WHERE company_id = $1 AND idempotency_key = $2`,
      [companyId, key],
    );
    const existing = rows[0];
    if (!existing) {
      // Removed between the two statements (its request failed): claim it again.
      return this.claim(companyId, key, fingerprint);
    }
    if (existing.fingerprint !== fingerprint) {
      return { outcome: 'mismatch' };
    }
    return existing.status === IDEMPOTENCY_KEY_LIFECYCLE.target('complete')
      ? { outcome: 'replay', status: existing.responseStatus ?? 200, body: existing.responseBody }
      : { outcome: 'in_progress' };
  }

  async complete(companyId: number, key: string, status: number, body: unknown): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys SET status = ${KEY_MOVE.complete.to}, response_status = $3, response_body = $4::jsonb,
              completed_at = now()
        WHERE company_id = $1 AND idempotency_key = $2 AND status IN (${KEY_MOVE.complete.from})`,
      [companyId, key, status, JSON.stringify(body ?? null)],
    );
  }

  /** The request failed: it created nothing, so the same key may try again. */
  async release(companyId: number, key: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_keys WHERE company_id = $1 AND idempotency_key = $2 AND status = 'IN_PROGRESS'`,
      [companyId, key],
    );
  }
}
