import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryRows } from '../../../database/query-rows';
import type { SentContact } from '../../user-databases/domain/sent-contact';

/** The SYSTEM-contacts feed's side of campaign_contacts: the SENT contacts not yet copied. */
@Injectable()
export class UnrecordedSentRepository {
  /**
   * Takes up to `limit` SENT contacts not yet copied to the SYSTEM database and marks them
   * copied; the caller copies them in the same transaction, so a crash undoes both. The same
   * statement records, per company and person, the number that sent to them last
   * (contact_senders: the next pool campaign keeps them on it), off the send path.
   */
  async claimUnrecordedSent(tx: Transaction, limit: number): Promise<SentContact[]> {
    return queryRows<SentContact>(
      tx,
      `WITH claimed AS (
         UPDATE campaign_contacts c SET system_recorded = true
           FROM (SELECT id FROM campaign_contacts WHERE status = 'SENT' AND NOT system_recorded
                  ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) batch
          WHERE c.id = batch.id
          RETURNING c.company_id, c.campaign_id, c.phone_number, c.name, c.sent_at),
       senders AS (
         INSERT INTO contact_senders (company_id, phone_key, gateway_config_id, last_sent_at)
         SELECT DISTINCT ON (c.company_id, phone_match_key(c.phone_number))
                c.company_id, phone_match_key(c.phone_number), k.gateway_config_id, coalesce(c.sent_at, now())
           FROM claimed c JOIN campaigns k ON k.id = c.campaign_id
          ORDER BY c.company_id, phone_match_key(c.phone_number), c.sent_at DESC NULLS LAST
         ON CONFLICT (company_id, phone_key) DO UPDATE
            SET gateway_config_id = EXCLUDED.gateway_config_id, last_sent_at = EXCLUDED.last_sent_at
          WHERE contact_senders.last_sent_at <= EXCLUDED.last_sent_at)
       SELECT company_id AS "companyId", campaign_id AS "campaignId", phone_number AS phone,
              coalesce(name, '') AS name, sent_at AS "sentAt"
         FROM claimed`,
      [limit],
    );
  }
}
