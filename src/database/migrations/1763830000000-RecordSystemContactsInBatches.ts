import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sent contacts reach the SYSTEM database through a background batch instead of inside each
 * send's transaction: `system_recorded` marks the ones already copied, and the partial index
 * holds only those still waiting, so finding them stays cheap however large the table grows.
 */
export class RecordSystemContactsInBatches1763830000000 implements MigrationInterface {
  name = 'RecordSystemContactsInBatches1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaign_contacts ADD COLUMN system_recorded boolean NOT NULL DEFAULT false`,
    );
    await q.query(
      `CREATE INDEX campaign_contacts_unrecorded_idx ON campaign_contacts (id)
        WHERE status = 'SENT' AND NOT system_recorded`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaign_contacts_unrecorded_idx`);
    await q.query(`ALTER TABLE campaign_contacts DROP COLUMN system_recorded`);
  }
}
