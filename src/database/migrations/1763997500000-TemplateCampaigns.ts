import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign on a Cloud API number may send an approved message template instead of a
 * message: its name, language and parameters (variables rendered per contact at send time).
 */
export class TemplateCampaigns1763997500000 implements MigrationInterface {
  name = 'TemplateCampaigns1763997500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns ADD COLUMN template jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns DROP COLUMN template`);
  }
}
