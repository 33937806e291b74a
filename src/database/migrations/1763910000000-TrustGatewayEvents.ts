import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Events as Evolution API really sends them (docs/ARCHITECTURE.md, "Gateway events"):
 * - gateway_configs.instance_token_encrypted: the instance's own token, sealed like the API
 *   key, which Evolution puts in every event's `apikey` even when the configuration holds
 *   the gateway's global key;
 * - gateway_configs.events_refused_at / events_refused_reason: the last event that carried
 *   the right secret but named another instance or key, shown on the configuration.
 * All nullable without a default: adding them rewrites no row.
 */
export class TrustGatewayEvents1763910000000 implements MigrationInterface {
  name = 'TrustGatewayEvents1763910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE gateway_configs
         ADD COLUMN instance_token_encrypted text,
         ADD COLUMN events_refused_at timestamptz,
         ADD COLUMN events_refused_reason varchar(20)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE gateway_configs DROP COLUMN instance_token_encrypted,
         DROP COLUMN events_refused_at, DROP COLUMN events_refused_reason`,
    );
  }
}
