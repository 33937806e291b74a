import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { queryRows } from '../../../database/query-rows';
import {
  GatewayEventsRepository,
  IncomingGatewayEvent,
  StoredGatewayEvent,
  GATEWAY_EVENTS_CHANNEL,
} from '../application/ports/gateway-events.repository';

/**
 * The gateway's events as a work table: stored in batches before they are acknowledged,
 * claimed with SKIP LOCKED, deleted once processed. A receipt that came before its send was
 * recorded waits a little and is tried again.
 */
@Injectable()
export class PgGatewayEventsRepository implements GatewayEventsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** One statement for the whole batch, with the NOTIFY that wakes the processors. */
  async store(events: IncomingGatewayEvent[]): Promise<void> {
    await this.dataSource.query(
      `WITH stored AS (
         INSERT INTO gateway_events (gateway_config_id, company_id, event, payload)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::jsonb[])
         RETURNING 1)
       SELECT pg_notify('${GATEWAY_EVENTS_CHANNEL}', '') FROM (SELECT count(*) FROM stored) AS s`,
      [
        events.map((e) => e.gatewayConfigId),
        events.map((e) => e.companyId),
        events.map((e) => e.event),
        events.map((e) => JSON.stringify(e.payload)),
      ],
    );
  }

  /** Due events in arrival order, locked for this transaction. */
  async claimDue(manager: EntityManager, limit: number): Promise<StoredGatewayEvent[]> {
    return queryRows<StoredGatewayEvent>(
      manager,
      `SELECT id, gateway_config_id AS "gatewayConfigId", company_id AS "companyId", event, payload,
              attempts, received_at AS "receivedAt"
         FROM gateway_events WHERE next_attempt_at <= now()
        ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  async delete(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length > 0) {
      await manager.query(`DELETE FROM gateway_events WHERE id = ANY($1::bigint[])`, [ids]);
    }
  }

  async retryLater(manager: EntityManager, ids: string[], delayMs: number): Promise<void> {
    if (ids.length > 0) {
      await manager.query(
        `UPDATE gateway_events SET attempts = attempts + 1,
                next_attempt_at = now() + make_interval(secs => $2::float / 1000)
          WHERE id = ANY($1::bigint[])`,
        [ids, delayMs],
      );
    }
  }

  async msUntilNextDue(): Promise<number | null> {
    const rows = await queryRows<{ ms: number | null }>(
      this.dataSource,
      `SELECT extract(epoch FROM min(next_attempt_at) - now()) * 1000 AS ms FROM gateway_events`,
    );
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? null : Math.max(0, Number(ms));
  }
}
