import { MigrationInterface, QueryRunner } from 'typeorm';

/** The campaigns the list shows: neither an automation run nor one of a pool's senders. */
const LISTED = `automation_run_id IS NULL AND (pool_id IS NULL OR pool_id = id)`;

/**
 * The campaign list's filters and the reports (docs/API-RULES.md, "Reports and the campaign
 * list"):
 * - `campaign_name_key`: a name without accents and in lower case, so that "promoção" finds
 *   "PROMOCAO"; IMMUTABLE (unaccent's own dictionary named, not looked up) so an index can
 *   hold it, and the trigram index answers a part of the name;
 * - the list's own rows by creation, without automation runs and pool senders in the way;
 * - each contact's outcome time (sent_at for SENT, failed_at for FAILED) by company, which the
 *   per-day report reads a range of.
 */
export class CampaignReportsAndListFilters1763995000000 implements MigrationInterface {
  name = 'CampaignReportsAndListFilters1763995000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public`);
    await q.query(`
      CREATE FUNCTION campaign_name_key(name text) RETURNS text
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
        SELECT lower(public.unaccent('public.unaccent'::regdictionary, name))
      $$`);
    await q.query(
      `CREATE INDEX campaigns_listed_created_idx ON campaigns (company_id, created_at DESC, id DESC)
        WHERE ${LISTED}`,
    );
    await q.query(
      `CREATE INDEX campaigns_listed_name_trgm_idx ON campaigns
        USING gin (company_id, campaign_name_key(name) gin_trgm_ops) WHERE ${LISTED}`,
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
    // unaccent stays: other searches may use it, and it holds no data.
    await q.query(`DROP FUNCTION campaign_name_key(text)`);
  }
}
