import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryRows } from '../../../database/query-rows';
import type { SentContact } from '../../user-databases/domain/sent-contact';
import { SENT_STAMP } from './system-contacts-feed.sql';

/** Where the feed stands, and how far it may read (the oldest transaction still running). */
interface FeedPosition {
  fedXid: string;
  fedId: string;
  readBelow: string;
}

/**
 * The next SENT contacts after the position ($2, $3) whose sends committed below $4, at most
 * $1 of them, in the feed's order; the position moves to the last of them in the same
 * statement. The same statement records, per company and person, the number that sent to them
 * last (contact_senders: the next pool campaign keeps them on it), off the send path.
 */
const TAKE_AFTER_POSITION = `
  WITH taken AS (
    SELECT c.id, c.sent_xid, c.company_id, c.campaign_id, c.phone_number, c.name, c.sent_at
      FROM campaign_contacts c
     WHERE c.status = 'SENT' AND c.sent_xid IS NOT NULL
       AND (c.sent_xid, c.id) > ($2::xid8, $3::bigint) AND c.sent_xid < $4::xid8
     ORDER BY c.sent_xid, c.id LIMIT $1),
  moved AS (
    UPDATE system_contacts_feed_position p SET fed_xid = last.sent_xid, fed_id = last.id
      FROM (SELECT sent_xid, id FROM taken ORDER BY sent_xid DESC, id DESC LIMIT 1) last),
  senders AS (
    INSERT INTO contact_senders (company_id, phone_key, gateway_config_id, last_sent_at)
    SELECT DISTINCT ON (c.company_id, phone_match_key(c.phone_number))
           c.company_id, phone_match_key(c.phone_number), k.gateway_config_id, coalesce(c.sent_at, now())
      FROM taken c JOIN campaigns k ON k.id = c.campaign_id
     ORDER BY c.company_id, phone_match_key(c.phone_number), c.sent_at DESC NULLS LAST
    ON CONFLICT (company_id, phone_key) DO UPDATE
       SET gateway_config_id = EXCLUDED.gateway_config_id, last_sent_at = EXCLUDED.last_sent_at
     WHERE contact_senders.last_sent_at <= EXCLUDED.last_sent_at)
  SELECT company_id AS "companyId", campaign_id AS "campaignId", phone_number AS phone,
         coalesce(name, '') AS name, sent_at AS "sentAt"
    FROM taken`;

/**
 * The SYSTEM-contacts feed's side of campaign_contacts: the SENT contacts after its position
 * (system-contacts-feed.sql.ts says why in commit order).
 */
@Injectable()
export class UnrecordedSentRepository {
  /**
   * Takes up to `limit` SENT contacts not yet copied to the SYSTEM database and moves the
   * feed's position past them; the caller copies them in the same transaction, so a crash
   * undoes both. One feed at a time holds the position; another finds it taken and takes none.
   */
  async claimUnrecordedSent(tx: Transaction, limit: number): Promise<SentContact[]> {
    const [position] = await queryRows<FeedPosition>(
      tx,
      // The snapshot's xmin: every transaction below it has ended, committed or not.
      `SELECT fed_xid::text AS "fedXid", fed_id::text AS "fedId",
              pg_snapshot_xmin(pg_current_snapshot())::text AS "readBelow"
         FROM system_contacts_feed_position FOR UPDATE SKIP LOCKED`,
    );
    if (!position) {
      return [];
    }
    if (BigInt(position.readBelow) < BigInt(position.fedXid)) {
      await this.restartBehindTheCounter(tx, position.readBelow);
      return [];
    }
    return queryRows<SentContact>(tx, TAKE_AFTER_POSITION, [
      limit,
      position.fedXid,
      position.fedId,
      position.readBelow,
    ]);
  }

  /**
   * The server's transaction counter is behind the position: the database was restored from
   * a dump into another server, whose counter starts again from the beginning. No new stamp
   * would pass the position again, so the sends stamped at or after the counter are stamped
   * anew and the feed starts over; copying a contact again only writes what its record holds.
   */
  private async restartBehindTheCounter(tx: Transaction, counter: string): Promise<void> {
    await queryRows(
      tx,
      `WITH restamped AS (
         UPDATE campaign_contacts SET ${SENT_STAMP}
          WHERE status = 'SENT' AND sent_xid >= $1::xid8 RETURNING 1)
       UPDATE system_contacts_feed_position SET fed_xid = '0', fed_id = 0`,
      [counter],
    );
  }
}
