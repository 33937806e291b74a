import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CampaignContactRow } from '../domain/campaign-contact-row';
import { onReadPool } from '../../../database/query-rows';

/** The rows that send campaign `id` (an SQL parameter): its own, or its senders' for a pool. */
export const SENDING_ROWS_OF = (id: string): string =>
  `SELECT k.id FROM campaigns k WHERE k.id = ${id} AND k.pool_id IS NULL
   UNION ALL SELECT k.id FROM campaigns k WHERE k.pool_id = ${id} AND k.id <> ${id}`;

/** A campaign's contacts as people read them: through its own row or its pool's senders. */
@Injectable()
export class CampaignContactsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async contactsPage(
    companyId: number,
    campaignId: number,
    page: number,
    size: number,
  ): Promise<{ items: CampaignContactRow[]; total: number }> {
    const [items, totals] = await onReadPool(this.dataSource, (reader) =>
      Promise.all([
        reader.query<CampaignContactRow[]>(
          `SELECT c.id, c.phone_number AS "phoneNumber", c.name, c.status, c.sent_at AS "sentAt",
                c.failed_at AS "failedAt", c.failure_reason AS "failureReason", c.retry_count AS "retryCount",
                c.delivered_at AS "deliveredAt", c.read_at AS "readAt", c.played_at AS "playedAt",
                c.delivery_error AS "deliveryError", c.sent_text AS "sentText", c.replied_at AS "repliedAt",
                c.warm, c.failure_kind AS "failureKind",
                s.gateway_config_id AS "senderGatewayConfigId", s.gateway_instance AS "senderInstance"
           FROM campaign_contacts c JOIN campaigns s ON s.id = c.campaign_id
          WHERE c.campaign_id = ANY (ARRAY(${SENDING_ROWS_OF('$1')})) AND c.company_id = $4
          ORDER BY c.id LIMIT $2 OFFSET $3`,
          [campaignId, size, page * size, companyId],
        ),
        reader.query<Array<{ total: number }>>(
          `SELECT total_contacts AS total FROM campaigns WHERE id = $1 AND company_id = $2`,
          [campaignId, companyId],
        ),
      ]),
    );
    return { items, total: totals[0]?.total ?? 0 };
  }
}
