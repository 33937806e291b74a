import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryRows } from '../../../database/query-rows';
import type { SentContact } from '../../user-databases/domain/sent-contact';

/** The SYSTEM-contacts feed's side of campaign_contacts: the SENT contacts not yet copied. */
@Injectable()
export class UnrecordedSentRepository {
  /**
   * Takes up to `limit` SENT contacts not yet copied to the SYSTEM database and marks them
   * copied; the caller copies them in the same transaction, so a crash undoes both.
   */
  async claimUnrecordedSent(tx: Transaction, limit: number): Promise<SentContact[]> {
    return queryRows<SentContact>(
      tx,
      `UPDATE campaign_contacts c SET system_recorded = true
         FROM (SELECT id FROM campaign_contacts WHERE status = 'SENT' AND NOT system_recorded
                ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) batch
        WHERE c.id = batch.id
        RETURNING c.company_id AS "companyId", c.campaign_id AS "campaignId",
                  c.phone_number AS phone, coalesce(c.name, '') AS name, c.sent_at AS "sentAt"`,
      [limit],
    );
  }
}
