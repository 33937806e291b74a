import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the Cloud API's messages cost (docs/API-RULES.md, "What Cloud API messages cost"):
 * - `companies.message_prices`: the company's price table (USD per message by pricing
 *   category); null: counted, not priced;
 * - `campaign_contacts.billed_category`: the category Meta billed the contact's message at,
 *   set once by the first status webhook that says it is charged, which the reports count.
 */
export class CloudApiCosts1763999500000 implements MigrationInterface {
  name = 'CloudApiCosts1763999500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE companies ADD COLUMN message_prices jsonb`);
    await q.query(`
      ALTER TABLE campaign_contacts
        ADD COLUMN billed_category varchar(14),
        ADD CONSTRAINT campaign_contacts_billed_category_check
          CHECK (billed_category IN ('marketing', 'utility', 'authentication', 'service'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaign_contacts
        DROP CONSTRAINT campaign_contacts_billed_category_check,
        DROP COLUMN billed_category`);
    await q.query(`ALTER TABLE companies DROP COLUMN message_prices`);
  }
}
