import { MigrationInterface, QueryRunner } from 'typeorm';

const KINDS_BEFORE = `'refused_number','rejected','retries_exhausted','blocked','blank_message','unknown_outcome','unrecorded','not_delivered'`;
const CLOUD_API_KINDS = `'undeliverable','reengagement_required','marketing_limit','outside_window'`;

/**
 * The failure kinds of the WhatsApp Cloud API (docs/SENDING.md, "Meta's outcomes"): Meta could
 * not deliver to the person, the person is outside the 24-hour window (by Meta's answer, or by
 * ours before any call), or the person reached Meta's per-user marketing limit.
 */
export class CloudApiOutcomes1763999000000 implements MigrationInterface {
  name = 'CloudApiOutcomes1763999000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaign_contacts
        DROP CONSTRAINT campaign_contacts_failure_kind_check,
        ADD CONSTRAINT campaign_contacts_failure_kind_check
          CHECK (failure_kind IN (${KINDS_BEFORE},${CLOUD_API_KINDS}))`);
  }

  async down(q: QueryRunner): Promise<void> {
    // The Cloud API's kinds read as what they were before they had names: the gateway refused.
    await q.query(`
      UPDATE campaign_contacts SET failure_kind = 'rejected'
       WHERE failure_kind IN (${CLOUD_API_KINDS})`);
    await q.query(`
      ALTER TABLE campaign_contacts
        DROP CONSTRAINT campaign_contacts_failure_kind_check,
        ADD CONSTRAINT campaign_contacts_failure_kind_check CHECK (failure_kind IN (${KINDS_BEFORE}))`);
  }
}
