/**
 * What a campaign contact `c` was heard to have received, as conditions on its columns, for
 * the contacts' filters, the follow-ups' modes and the reports alike (docs/API-RULES.md,
 * "Finding and exporting a campaign's contacts"). A READ or PLAYED receipt records the delivery
 * too (delivery-receipts.repository.ts), and a reply proves both: a person who answered is
 * never counted as not delivered or not read.
 */
export const RECEIVED = {
  delivered: `(c.delivered_at IS NOT NULL OR c.replied_at IS NOT NULL)`,
  read: `(c.read_at IS NOT NULL OR c.replied_at IS NOT NULL)`,
  replied: `c.replied_at IS NOT NULL`,
  /** Went out and was never confirmed, or WhatsApp refused it after the gateway took it. */
  notDelivered: `((c.status = 'SENT' AND c.delivered_at IS NULL AND c.replied_at IS NULL)
                  OR (c.status = 'FAILED' AND c.failure_kind = 'not_delivered'))`,
} as const;
