import { MigrationInterface, QueryRunner } from 'typeorm';

/** The campaigns the list shows: neither an automation run nor one of a pool's senders. */
const LISTED = `automation_run_id IS NULL AND (pool_id IS NULL OR pool_id = id)`;

/**
 * The campaign list's filters and the reports (docs/API-RULES.md, "Reports and the campaign
 * list"):
 * - the names' trigrams, folded by FindCampaignContacts' `folded_text` (no accents, lower
 *   case), so that "promoção" finds "PROMOCAO" and a part of the name is answered by an index;
 * - the list's own rows by creation, without automation runs and pool senders in the way;
 * - each contact's outcome time (sent_at for SENT, failed_at for FAILED) by company, which the
 *   per-day report reads a range of.
 */
export class CampaignReportsAndListFilters1763995000000 implements MigrationInterface {
  name = 'CampaignReportsAndListFilters1763995000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX campaigns_listed_created_idx ON campaigns (company_id, created_at DESC, id DESC)
        WHERE ${LISTED}`,
    );
    await q.query(
      `CREATE INDEX campaigns_listed_name_trgm_idx ON campaigns
        USING gin (company_id, folded_text(name) gin_trgm_ops) WHERE ${LISTED}`,
    );
    await q.query(
      `CREATE INDEX campaign_contacts_outcome_at_idx ON campaign_contacts
        (company_id, (CASE WHEN status = 'SENT' THEN sent_at ELSE failed_at END))
        WHERE status IN ('SENT', 'FAILED')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaign_contacts_outcome_at_idx`);
    await q.query(`DROP INDEX campaigns_listed_name_trgm_idx`);
    await q.query(`DROP INDEX campaigns_listed_created_idx`);
  }
}
