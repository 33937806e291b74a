import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A contact's name as a name search compares it (lower case, no accents), stored, so that
 * re-checking the trigram index's matches reads a column instead of folding each name again.
 * Measured with EXPLAIN ANALYZE on a 100,000-contact campaign among 400,000 contacts (the same
 * rows in two tables, one with the fold as the index's expression, one with it stored): a
 * count of 25,002 matches 70 → 31 ms, of 12,500 matches 40 → 10 ms (load average 4.5).
 *
 * What it costs: the rows grow by the folded name (heap +14 %, which reads of a whole
 * campaign pay: a status count 25.3 → 25.9 ms); a contact's insert folds its name once, as
 * the index expression did. PostgreSQL computes a stored generated column again only when
 * a column it reads changes, so a send (status, sent_at...) does not fold: UPDATE … SET
 * status of 10,000 contacts took the same time with and without it (287 and 304 ms, medians
 * of 9, within their spread). The ALTER rewrites the table once, under its lock.
 *
 * And the failure kind's filter: its contacts are found among the campaign's FAILED ones only
 * (campaign_contacts_failure_kind_idx) instead of in all its rows: 2,000 `blocked` among
 * 100,000 contacts counted in 2.3 ms instead of 55, their 11th page read in 8 ms instead of
 * 58 (medians of 9, load average 11.5: the 98,000 rows no longer filtered are the gain). A
 * send writes it only when its contact fails (one entry, in the non-HOT update it makes
 * anyway); 304 kB for 40,000 FAILED contacts.
 */
export class ContactFilterIndexes1763996000000 implements MigrationInterface {
  name = 'ContactFilterIndexes1763996000000';

  async up(q: QueryRunner): Promise<void> {
    // Dropped first: the rewrite would otherwise rebuild the index it replaces.
    await q.query(`DROP INDEX campaign_contacts_name_search_idx`);
    await q.query(`
      ALTER TABLE campaign_contacts
        ADD COLUMN folded_name text GENERATED ALWAYS AS (folded_text(name)) STORED`);
    await q.query(`
      CREATE INDEX campaign_contacts_name_search_idx ON campaign_contacts
        USING gin (campaign_id, folded_name gin_trgm_ops)`);
    await q.query(`
      CREATE INDEX campaign_contacts_failure_kind_idx ON campaign_contacts (campaign_id, failure_kind)
        WHERE status = 'FAILED'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaign_contacts_failure_kind_idx`);
    await q.query(`DROP INDEX campaign_contacts_name_search_idx`);
    await q.query(`ALTER TABLE campaign_contacts DROP COLUMN folded_name`);
    await q.query(`
      CREATE INDEX campaign_contacts_name_search_idx ON campaign_contacts
        USING gin (campaign_id, folded_text(name) gin_trgm_ops)`);
  }
}
