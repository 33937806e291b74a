import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign waiting for its instance says so (docs/API-RULES.md §4, "Waiting"):
 * campaigns.waiting_reason takes INSTANCE_DISCONNECTED (21 characters), one more than it held.
 * Widening a varchar is a catalog change in PostgreSQL: no row is rewritten.
 */
export class WaitForInstance1763940000000 implements MigrationInterface {
  name = 'WaitForInstance1763940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns ALTER COLUMN waiting_reason TYPE varchar(30)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `UPDATE campaigns SET waiting_reason = NULL
        WHERE waiting_reason IN ('INSTANCE_DISCONNECTED', 'INSTANCE_NOT_PAIRED')`,
    );
    await q.query(`ALTER TABLE campaigns ALTER COLUMN waiting_reason TYPE varchar(20)`);
  }
}
