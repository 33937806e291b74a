import { Injectable } from '@nestjs/common';
import { DataSource, QueryFailedError } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryMilliseconds, queryPrepared, queryRows } from '../../../database/query-rows';
import { CONNECTION_COALESCE_MS } from '../domain/connection-events';
import { CLOUD_ACCOUNT_EVENTS } from '../domain/meta-webhook';
import {
  GatewayEventsRepository,
  IncomingGatewayEvent,
  StoredGatewayEvent,
  GATEWAY_EVENTS_CHANNEL,
} from '../application/ports/gateway-events.repository';

/** The account events as gateway_events_account_due_idx's predicate lists them. */
const ACCOUNT_EVENT_LIST = CLOUD_ACCOUNT_EVENTS.map((event) => `'${event}'`).join(', ');

const COLUMNS = `id, gateway_config_id AS "gatewayConfigId", company_id AS "companyId", event, payload,
  attempts, faults, received_at AS "receivedAt"`;
/**
 * Receipts and replies not set aside: rows of gateway_events_company_due_idx (whose predicate
 * the first two terms are), without the Cloud API's account events (leaseAccountEvents).
 */
const MESSAGES_PENDING = `failed_at IS NULL AND event <> 'connection.update'
  AND event NOT IN (${ACCOUNT_EVENT_LIST})`;

/** The statement of `store`; see there. */
const STORE = `WITH live AS (
    SELECT id, company_id FROM gateway_configs
     WHERE id = ANY($1::int[]) AND (track_delivery OR provider = 'CLOUD_API') FOR KEY SHARE),
  stored AS (
    INSERT INTO gateway_events (gateway_config_id, company_id, event, payload)
    SELECT e.config, e.company, e.event, e.payload
      FROM unnest($1::int[], $2::int[], $3::text[],
                  ARRAY(SELECT p FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS a(p, n) ORDER BY n))
           AS e(config, company, event, payload)
      JOIN live ON live.id = e.config AND live.company_id = e.company)
  SELECT id FROM live`;

/**
 * The gateway's events as a work table: stored in batches before they are acknowledged,
 * claimed with SKIP LOCKED, deleted once processed. A receipt that came before its send was
 * recorded waits a little and is tried again. Connection events are leased per configuration,
 * all pending at once, at most once per window (gateway_connection_windows: when its events
 * were last taken, CONNECTION_COALESCE_MS long). Set-aside events keep `failed_at` and
 * `failure`, outside the partial indexes every claim reads.
 */
@Injectable()
export class PgGatewayEventsRepository implements GatewayEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async inSavepoint<T>(tx: Transaction, work: () => Promise<T>): Promise<T> {
    await execute(tx, 'SAVEPOINT gateway_event');
    try {
      const result = await work();
      await execute(tx, 'RELEASE SAVEPOINT gateway_event');
      return result;
    } catch (error) {
      await execute(tx, 'ROLLBACK TO SAVEPOINT gateway_event');
      await execute(tx, 'RELEASE SAVEPOINT gateway_event');
      throw error;
    }
  }

  /**
   * One statement for the whole batch. Only rows whose configuration still exists and tracks
   * delivery are written (locked FOR KEY SHARE meanwhile, so a delete waits and then
   * cascades): a configuration deleted after the gate looked it up costs its own events, never
   * a foreign-key failure of the whole batch. Without the NOTIFY (announce): a transaction that
   * notifies holds PostgreSQL's one notification lock through its commit's WAL flush, which
   * made every batch of every instance commit one after the other. A prepared statement; the
   * payloads go as one JSON array, not an array of JSON texts that the driver escapes one by
   * one.
   */
  async store(events: IncomingGatewayEvent[]): Promise<Set<number>> {
    const values = [
      events.map((e) => e.gatewayConfigId),
      events.map((e) => e.companyId),
      events.map((e) => e.event),
      JSON.stringify(events.map((e) => e.payload)),
    ];
    const rows = await queryPrepared<{ id: number }>(
      this.dataSource,
      'gateway_events_store',
      STORE,
      values,
    ).catch((error: unknown) => {
      // As TypeORM reports it, so that its log line never carries what the events held.
      throw new QueryFailedError(STORE, [], error as Error);
    });
    return new Set(rows.map((row) => row.id));
  }

  async announce(): Promise<void> {
    await queryPrepared(
      this.dataSource,
      'gateway_events_announce',
      `SELECT pg_notify('${GATEWAY_EVENTS_CHANNEL}', '')`,
      [],
    );
  }

  /**
   * Per company in turn (gateway_events_company_due_idx): `pending` walks the companies with
   * pending receipts or replies, one index probe each (a loose index scan), with each one's
   * earliest; up to `limit` of those with some due, earliest first, get an equal share of the
   * batch, taken in their due order and locked (SKIP LOCKED). A company alone gets it all.
   */
  async claimDue(tx: Transaction, limit: number): Promise<StoredGatewayEvent[]> {
    return queryRows<StoredGatewayEvent>(
      tx,
      `WITH RECURSIVE pending AS (
         (SELECT company_id, next_attempt_at FROM gateway_events
           WHERE ${MESSAGES_PENDING} ORDER BY company_id, next_attempt_at LIMIT 1)
         UNION ALL
         SELECT next.company_id, next.next_attempt_at FROM pending
          CROSS JOIN LATERAL (
            SELECT company_id, next_attempt_at FROM gateway_events
             WHERE ${MESSAGES_PENDING} AND company_id > pending.company_id
             ORDER BY company_id, next_attempt_at LIMIT 1) AS next),
       due AS (
         SELECT company_id FROM pending WHERE next_attempt_at <= now()
          ORDER BY next_attempt_at LIMIT $1::int),
       share AS (SELECT greatest($1::int / count(*), 1) AS n FROM due)
       SELECT claimed.* FROM due
        CROSS JOIN LATERAL (
          SELECT ${COLUMNS} FROM gateway_events
           WHERE ${MESSAGES_PENDING} AND company_id = due.company_id AND next_attempt_at <= now()
           ORDER BY next_attempt_at, id LIMIT (SELECT n FROM share)
             FOR UPDATE SKIP LOCKED) AS claimed`,
      [limit],
    );
  }

  /**
   * Only configurations whose window has ended; the lease opens the next one in the same
   * statement. A row leased meanwhile by another processor is no longer due, so the lock's
   * recheck leaves it out.
   */
  async leaseConnections(configs: number, leaseMs: number): Promise<StoredGatewayEvent[]> {
    return queryRows<StoredGatewayEvent>(
      this.dataSource,
      `WITH leased AS (
         UPDATE gateway_events SET attempts = attempts + 1,
                next_attempt_at = now() + make_interval(secs => $2::float / 1000)
          WHERE id IN (
            SELECT id FROM gateway_events
             WHERE event = 'connection.update' AND failed_at IS NULL AND next_attempt_at <= now()
               AND gateway_config_id IN (
                 SELECT DISTINCT e.gateway_config_id FROM gateway_events e
                  WHERE e.event = 'connection.update' AND e.failed_at IS NULL
                    AND e.next_attempt_at <= now()
                    AND NOT EXISTS (
                      SELECT 1 FROM gateway_connection_windows w
                       WHERE w.gateway_config_id = e.gateway_config_id
                         AND w.applied_at > now() - make_interval(secs => $3::float / 1000))
                  LIMIT $1)
             FOR UPDATE SKIP LOCKED)
          RETURNING ${COLUMNS}),
       windows AS (
         INSERT INTO gateway_connection_windows (gateway_config_id, applied_at)
         SELECT DISTINCT "gatewayConfigId", now() FROM leased
         ON CONFLICT (gateway_config_id) DO UPDATE SET applied_at = now())
       SELECT * FROM leased`,
      [configs, leaseMs, CONNECTION_COALESCE_MS],
    );
  }

  async leaseAccountEvents(limit: number, leaseMs: number): Promise<StoredGatewayEvent[]> {
    return queryRows<StoredGatewayEvent>(
      this.dataSource,
      `UPDATE gateway_events SET attempts = attempts + 1,
              next_attempt_at = now() + make_interval(secs => $2::float / 1000)
        WHERE id IN (
          SELECT id FROM gateway_events
           WHERE failed_at IS NULL AND event IN (${ACCOUNT_EVENT_LIST}) AND next_attempt_at <= now()
           ORDER BY next_attempt_at, id LIMIT $1
             FOR UPDATE SKIP LOCKED)
        RETURNING ${COLUMNS}`,
      [limit, leaseMs],
    );
  }

  async delete(ids: string[], tx?: Transaction): Promise<void> {
    if (ids.length > 0) {
      await execute(
        tx ?? this.dataSource,
        `DELETE FROM gateway_events WHERE id = ANY($1::bigint[])`,
        [ids],
      );
    }
  }

  async retryLater(tx: Transaction, ids: string[], delayMs: number): Promise<void> {
    if (ids.length > 0) {
      await execute(
        tx,
        `UPDATE gateway_events SET attempts = attempts + 1,
                next_attempt_at = now() + make_interval(secs => $2::float / 1000)
          WHERE id = ANY($1::bigint[])`,
        [ids, delayMs],
      );
    }
  }

  /** `faults` grows by one; the event is due again after baseMs × 2^(its faults so far). */
  async retryAfterFault(ids: string[], baseMs: number, tx?: Transaction): Promise<void> {
    if (ids.length > 0) {
      await execute(
        tx ?? this.dataSource,
        `UPDATE gateway_events SET faults = faults + 1,
                next_attempt_at = now() + make_interval(secs => $2::float / 1000 * 2 ^ faults)
          WHERE id = ANY($1::bigint[])`,
        [ids, baseMs],
      );
    }
  }

  async setAside(id: string, reason: string, tx?: Transaction): Promise<void> {
    await execute(
      tx ?? this.dataSource,
      `UPDATE gateway_events SET failed_at = now(), failure = left($2, 300) WHERE id = $1`,
      [id, reason],
    );
  }

  /** Connection events are due at the end of their configuration's window at the earliest. */
  async msUntilNextDue(): Promise<number | null> {
    const ms = await queryMilliseconds(
      this.dataSource,
      `SELECT extract(epoch FROM least(
                (SELECT min(next_attempt_at) FROM gateway_events
                  WHERE failed_at IS NULL AND event <> 'connection.update'),
                (SELECT min(greatest(e.next_attempt_at,
                                     w.applied_at + make_interval(secs => $1::float / 1000)))
                   FROM gateway_events e
                   LEFT JOIN gateway_connection_windows w USING (gateway_config_id)
                  WHERE e.event = 'connection.update' AND e.failed_at IS NULL)
              ) - now()) * 1000 AS ms`,
      [CONNECTION_COALESCE_MS],
    );
    return ms === null ? null : Math.max(0, ms);
  }
}
