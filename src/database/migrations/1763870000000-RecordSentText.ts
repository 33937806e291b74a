import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What each contact was sent, its variants drawn and its variables filled (docs/API-RULES.md
 * §4), written with the delivery. A nullable column without a default: adding it rewrites
 * nothing, however large the table.
 */
export class RecordSentText1763870000000 implements MigrationInterface {
  name = 'RecordSentText1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_contacts ADD COLUMN sent_text text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_contacts DROP COLUMN sent_text`);
  }
}
