import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Gateway events that fail on their own are set aside instead of failing every batch they are
 * in: `failed_at` and `failure` (the reason) keep them for an operator, and the partial indexes
 * every claim reads leave them out. Connection events are taken per configuration, all pending
 * at once (coalesced), through their own partial index; gateway_connection_windows keeps when
 * each configuration's were last applied, so that the next ones wait for the window's end.
 */
export class GatewayEventsIsolated1763920000000 implements MigrationInterface {
  name = 'GatewayEventsIsolated1763920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE gateway_events ADD COLUMN failed_at timestamptz, ADD COLUMN failure varchar(300)`,
    );
    await q.query(`DROP INDEX gateway_events_due_idx`);
    await q.query(
      `CREATE INDEX gateway_events_due_idx ON gateway_events (next_attempt_at, id)
        WHERE failed_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX gateway_events_pending_connection_idx ON gateway_events (gateway_config_id)
        WHERE event = 'connection.update' AND failed_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE gateway_connection_windows (
        gateway_config_id integer PRIMARY KEY REFERENCES gateway_configs(id) ON DELETE CASCADE,
        applied_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_connection_windows`);
    await q.query(`DROP INDEX gateway_events_pending_connection_idx`);
    await q.query(`DROP INDEX gateway_events_due_idx`);
    await q.query(`CREATE INDEX gateway_events_due_idx ON gateway_events (next_attempt_at, id)`);
    await q.query(`ALTER TABLE gateway_events DROP COLUMN failed_at, DROP COLUMN failure`);
  }
}
