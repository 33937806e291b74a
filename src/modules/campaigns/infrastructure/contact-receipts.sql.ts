/**
 * What a campaign contact `c` was heard to have received, as conditions on its columns, read
 * the same way by the contacts' filters, the follow-ups' modes and the reports, and as the
 * campaign's counters count them (deliveredContacts, readContacts, repliedContacts). A READ or
 * PLAYED receipt records the delivery too, and a PLAYED one the reading
 * (delivery-receipts.repository.ts), so each reads one column.
 */
export const RECEIVED = {
  delivered: `c.delivered_at IS NOT NULL`,
  read: `c.read_at IS NOT NULL`,
  replied: `c.replied_at IS NOT NULL`,
  /** Went out and was never confirmed, or WhatsApp refused it after the gateway took it. */
  notDelivered: `((c.status = 'SENT' AND c.delivered_at IS NULL)
                  OR (c.status = 'FAILED' AND c.failure_kind = 'not_delivered'))`,
} as const;
