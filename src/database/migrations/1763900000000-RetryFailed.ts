import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retrying a finished campaign's failed contacts (docs/API-RULES.md §4):
 * - campaign_contacts.failure_kind says why a FAILED contact failed, which decides whether a
 *   retry may send it again (src/modules/campaigns/domain/contact-failure-kind.ts); it is set
 *   exactly on FAILED rows.
 * - campaign_contacts.retried_at is when a retry took the contact back: once per contact.
 *
 * FAILED rows from before get `unrecorded`, which is never retried: their reason texts were
 * written by versions that also failed sends whose outcome was unknown, so the text alone
 * cannot prove that nothing went out. Only FAILED rows are rewritten; both columns are
 * nullable without a default, so adding them rewrites nothing else.
 */
export class RetryFailed1763900000000 implements MigrationInterface {
  name = 'RetryFailed1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaign_contacts ADD COLUMN failure_kind text, ADD COLUMN retried_at timestamptz`,
    );
    await q.query(
      `UPDATE campaign_contacts SET failure_kind = 'unrecorded' WHERE status = 'FAILED'`,
    );
    await q.query(
      `ALTER TABLE campaign_contacts
         ADD CONSTRAINT campaign_contacts_failure_kind_check
           CHECK (failure_kind IN ('refused_number','rejected','retries_exhausted','blocked',
                                   'blank_message','unknown_outcome','unrecorded')),
         ADD CONSTRAINT campaign_contacts_failed_kind_check
           CHECK ((status = 'FAILED') = (failure_kind IS NOT NULL))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaign_contacts DROP CONSTRAINT campaign_contacts_failed_kind_check,
         DROP CONSTRAINT campaign_contacts_failure_kind_check,
         DROP COLUMN failure_kind, DROP COLUMN retried_at`,
    );
  }
}
