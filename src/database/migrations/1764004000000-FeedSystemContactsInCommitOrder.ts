import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SYSTEM-contacts feed follows the sends in commit order instead of flagging each contact
 * it copied. The flag (`system_recorded`) was a third non-HOT version of every sent contact's
 * row, entering seven of its indexes: a fifth of a paced message's WAL, and as many dead
 * versions for vacuum (docs/PERFORMANCE.md). Now the statement that makes a contact SENT stamps its
 * transaction's id (`sent_xid`), and the feed keeps one position, the (sent_xid, id) of the
 * last contact it copied. It reads only below the oldest transaction still running
 * (`pg_snapshot_xmin`): every one below has ended, so no contact can appear behind the
 * position later. The SENT contacts not yet copied are stamped here, to be copied first.
 */
export class FeedSystemContactsInCommitOrder1764004000000 implements MigrationInterface {
  name = 'FeedSystemContactsInCommitOrder1764004000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_contacts ADD COLUMN sent_xid xid8`);
    await q.query(`
      UPDATE campaign_contacts SET sent_xid = pg_current_xact_id()
       WHERE status = 'SENT' AND NOT system_recorded`);
    await q.query(`
      CREATE TABLE system_contacts_feed_position (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        fed_xid xid8 NOT NULL,
        fed_id bigint NOT NULL)`);
    await q.query(
      `INSERT INTO system_contacts_feed_position (fed_xid, fed_id) VALUES ('0'::xid8, 0)`,
    );
    await q.query(`
      CREATE INDEX campaign_contacts_sent_xid_idx ON campaign_contacts (sent_xid, id)
       WHERE status = 'SENT' AND sent_xid IS NOT NULL`);
    await q.query(`DROP INDEX campaign_contacts_unrecorded_idx`);
    await q.query(`ALTER TABLE campaign_contacts DROP COLUMN system_recorded`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaign_contacts ADD COLUMN system_recorded boolean NOT NULL DEFAULT true`,
    );
    await q.query(`
      UPDATE campaign_contacts c SET system_recorded = false
        FROM system_contacts_feed_position p
       WHERE c.status = 'SENT' AND (c.sent_xid, c.id) > (p.fed_xid, p.fed_id)`);
    await q.query(`ALTER TABLE campaign_contacts ALTER COLUMN system_recorded SET DEFAULT false`);
    await q.query(`
      CREATE INDEX campaign_contacts_unrecorded_idx ON campaign_contacts (id)
       WHERE status = 'SENT' AND NOT system_recorded`);
    await q.query(`DROP INDEX campaign_contacts_sent_xid_idx`);
    await q.query(`DROP TABLE system_contacts_feed_position`);
    await q.query(`ALTER TABLE campaign_contacts DROP COLUMN sent_xid`);
  }
}
