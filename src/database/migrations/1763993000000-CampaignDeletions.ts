import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A person deletes a campaign (DELETE /api/campaigns/{id}): its row, and a pool's sender rows,
 * go in the request's transaction, so it is gone from every read at once; its contacts, up to
 * 100,000 and more, go afterwards in batches (CampaignDeletionsWorker), which a foreign key's
 * cascade would have done in that one transaction. So the contacts' foreign key to campaigns
 * becomes a trigger that deletes them with the campaign as the cascade did, except for the
 * campaigns a `campaign_deletions` row hands over to the batches (inserted in the same
 * transaction before the delete: a crash loses both or neither, and the batches go on after a
 * restart). The row also keeps what the creation limit counts (launched_at) once the campaign
 * is gone, so that deleting never gives back a creation of the last hour.
 */
export class CampaignDeletions1763993000000 implements MigrationInterface {
  name = 'CampaignDeletions1763993000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaign_deletions (
        campaign_id integer PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        pool_id integer,
        status varchar(20) NOT NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        launched_at timestamptz,
        counts_as_creation boolean NOT NULL,
        deleted_at timestamptz NOT NULL DEFAULT now(),
        purged_at timestamptz
      )`);
    // The batches' queue: the deletions whose contacts are not all gone yet.
    await q.query(
      `CREATE INDEX campaign_deletions_unpurged_idx ON campaign_deletions (deleted_at) WHERE purged_at IS NULL`,
    );
    // The creation limit's count of the last hour's launches, per company.
    await q.query(
      `CREATE INDEX campaign_deletions_company_launched_idx ON campaign_deletions (company_id, launched_at)
        WHERE counts_as_creation`,
    );
    await q.query(
      `ALTER TABLE campaign_contacts DROP CONSTRAINT campaign_contacts_campaign_id_fkey`,
    );
    await q.query(`
      CREATE FUNCTION campaign_contacts_go_with_campaign() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM campaign_contacts c USING gone g
         WHERE c.campaign_id = g.id
           AND NOT EXISTS (SELECT 1 FROM campaign_deletions d WHERE d.campaign_id = g.id);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER campaigns_contacts_go_with_them AFTER DELETE ON campaigns
        REFERENCING OLD TABLE AS gone
        FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_go_with_campaign()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER campaigns_contacts_go_with_them ON campaigns`);
    await q.query(`DROP FUNCTION campaign_contacts_go_with_campaign()`);
    // Contacts whose campaign is gone would refuse the foreign key: their batches end here.
    await q.query(
      `DELETE FROM campaign_contacts c WHERE NOT EXISTS (SELECT 1 FROM campaigns k WHERE k.id = c.campaign_id)`,
    );
    await q.query(
      `ALTER TABLE campaign_contacts ADD CONSTRAINT campaign_contacts_campaign_id_fkey
         FOREIGN KEY (campaign_id) REFERENCES campaigns(id) ON DELETE CASCADE`,
    );
    await q.query(`DROP TABLE campaign_deletions`);
  }
}
