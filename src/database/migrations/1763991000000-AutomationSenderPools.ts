import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An automation may send through a pool of senders, as a campaign does (docs/ARCHITECTURE.md,
 * "Sender pools"): `gateway_config_ids` is the pool in its order, each run opened on it; null
 * for an automation on one number. `gateway_config_id` stays the pool's first, so every reader
 * of the one number (the run's notices, the configuration's usage) keeps working; the check
 * holds that, and the campaigns' bound of 20 numbers.
 */
export class AutomationSenderPools1763991000000 implements MigrationInterface {
  name = 'AutomationSenderPools1763991000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE automations
        ADD COLUMN gateway_config_ids integer[],
        ADD CONSTRAINT automations_pool_check CHECK (
          gateway_config_ids IS NULL OR (
            cardinality(gateway_config_ids) BETWEEN 1 AND 20
            AND gateway_config_ids[1] = gateway_config_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE automations DROP CONSTRAINT automations_pool_check, DROP COLUMN gateway_config_ids`,
    );
  }
}
