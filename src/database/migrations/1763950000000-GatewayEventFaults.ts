import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How many times applying a gateway event failed for a reason that is not its values' (a lock
 * timeout, a trigger's error, a bug): counted apart from `attempts` (a receipt waiting for its
 * send counts those), so that such an event is tried again with back-off and set aside after a
 * few failures instead of failing every step forever.
 */
export class GatewayEventFaults1763950000000 implements MigrationInterface {
  name = 'GatewayEventFaults1763950000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_events ADD COLUMN faults integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE gateway_events DROP COLUMN faults`);
  }
}
