import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the engine watches to pause a campaign that shows ban signals (docs/API-RULES.md §4):
 * the sends that failed in a row, and the refused numbers among the first sends; and each
 * company's thresholds for them (null: the defaults). Constant defaults: adding the columns
 * rewrites nothing.
 */
export class BanSignals1763890000000 implements MigrationInterface {
  name = 'BanSignals1763890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaigns
         ADD COLUMN send_failure_streak integer NOT NULL DEFAULT 0,
         ADD COLUMN watched_sends integer NOT NULL DEFAULT 0,
         ADD COLUMN watched_refusals integer NOT NULL DEFAULT 0`,
    );
    await q.query(`ALTER TABLE companies ADD COLUMN auto_pause jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE companies DROP COLUMN auto_pause`);
    await q.query(
      `ALTER TABLE campaigns
         DROP COLUMN send_failure_streak, DROP COLUMN watched_sends, DROP COLUMN watched_refusals`,
    );
  }
}
