/**
 * The SYSTEM-contacts feed's order (migration FeedSystemContactsInCommitOrder): every
 * statement that makes a contact SENT stamps its transaction's id, and the feed copies the SENT
 * contacts after its position, in (sent_xid, id) order, up to the oldest transaction still
 * running (every one below it has ended: nothing can appear behind the position later).
 */

/** The writing transaction's id, which the feed's order follows. */
export const SENDING_TRANSACTION = `pg_current_xact_id()`;

/** What a statement that makes a contact SENT writes besides its status. */
export const SENT_STAMP = `sent_xid = ${SENDING_TRANSACTION}`;

/** Contact `c` is SENT and the feed has not copied it yet. */
export const AWAITS_THE_FEED = `c.status = 'SENT' AND c.sent_xid IS NOT NULL
  AND (c.sent_xid, c.id) > (SELECT p.fed_xid, p.fed_id FROM system_contacts_feed_position p)`;
