import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A draft counts against the hourly creation limit when it is launched, not when it is saved
 * (docs/API-RULES.md, "Drafts: edit and launch"): `launched_at` is when a campaign left DRAFT,
 * or its creation when it was never one. Every campaign created before this was counted at
 * its creation, so the backfill keeps the counts of the hour that is running as they were.
 * The index serves the limit's count: a company's launches of the last hour.
 */
export class LaunchDrafts1763992000000 implements MigrationInterface {
  name = 'LaunchDrafts1763992000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns ADD COLUMN launched_at timestamptz`);
    await q.query(`UPDATE campaigns SET launched_at = created_at WHERE status <> 'DRAFT'`);
    await q.query(
      `CREATE INDEX campaigns_company_launched_idx ON campaigns (company_id, launched_at DESC)
        WHERE automation_run_id IS NULL AND launched_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaigns_company_launched_idx`);
    await q.query(`ALTER TABLE campaigns DROP COLUMN launched_at`);
  }
}
