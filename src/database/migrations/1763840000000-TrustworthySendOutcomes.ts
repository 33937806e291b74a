import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Send outcomes the engine can trust:
 * - UNCERTAIN: the gateway may or may not have sent the message (timeout after the request was
 *   written, a proxy's 5xx, an unexplained 400). It is never sent again; `reconcile_at` is when
 *   the gateway's message store is asked next, `reconcile_attempts` how often it was asked.
 * - campaigns.unknown_outcome_contacts counts the FAILED contacts whose outcome stayed unknown.
 * - campaigns.pause_reason says why the engine paused a campaign (our own repeated errors, a
 *   deactivated company); internal_error_streak counts our errors in a row.
 */
export class TrustworthySendOutcomes1763840000000 implements MigrationInterface {
  name = 'TrustworthySendOutcomes1763840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaign_contacts DROP CONSTRAINT campaign_contacts_status_check,
         ADD CONSTRAINT campaign_contacts_status_check
           CHECK (status IN ('PENDING','SENDING','UNCERTAIN','SENT','FAILED')),
         ADD COLUMN reconcile_at timestamptz,
         ADD COLUMN reconcile_attempts integer NOT NULL DEFAULT 0`,
    );
    await q.query(
      `CREATE INDEX campaign_contacts_reconcile_idx ON campaign_contacts (reconcile_at)
        WHERE status = 'UNCERTAIN'`,
    );
    await q.query(
      `ALTER TABLE campaigns
         ADD COLUMN unknown_outcome_contacts integer NOT NULL DEFAULT 0,
         ADD COLUMN pause_reason text,
         ADD COLUMN internal_error_streak integer NOT NULL DEFAULT 0`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaigns DROP COLUMN unknown_outcome_contacts, DROP COLUMN pause_reason,
         DROP COLUMN internal_error_streak`,
    );
    await q.query(`DROP INDEX campaign_contacts_reconcile_idx`);
    await q.query(`UPDATE campaign_contacts SET status = 'FAILED' WHERE status = 'UNCERTAIN'`);
    await q.query(
      `ALTER TABLE campaign_contacts DROP COLUMN reconcile_at, DROP COLUMN reconcile_attempts,
         DROP CONSTRAINT campaign_contacts_status_check,
         ADD CONSTRAINT campaign_contacts_status_check
           CHECK (status IN ('PENDING','SENDING','SENT','FAILED'))`,
    );
  }
}
