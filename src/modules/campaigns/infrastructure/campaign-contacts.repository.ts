import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { CampaignContactRow } from '../domain/campaign-contact-row';
import {
  CONTACT_STATUSES_SHOWN_AS,
  counterOf,
  type CampaignContactFilters,
  type ContactCounter,
  type ContactReceipt,
} from '../domain/campaign-contact-filters';
import type { CampaignContactExportRow } from '../domain/campaign-contact-export';
import { onReadPool } from '../../../database/query-rows';
import { likeContaining } from '../../../common/persistence/like-pattern';
import { RECEIVED } from './contact-receipts.sql';

/** The rows that send campaign `id` (an SQL parameter): its own, or its senders' for a pool. */
export const SENDING_ROWS_OF = (id: string): string =>
  `SELECT k.id FROM campaigns k WHERE k.id = ${id} AND k.pool_id IS NULL
   UNION ALL SELECT k.id FROM campaigns k WHERE k.pool_id = ${id} AND k.id <> ${id}`;

/** Each counter as the campaigns' columns that hold it (PENDING: neither sent nor failed yet). */
const COUNTER_SUMS: Record<ContactCounter, string> = {
  total: 'total_contacts',
  pending: 'total_contacts - sent_contacts - failed_contacts',
  sent: 'sent_contacts',
  failed: 'failed_contacts',
  delivered: 'delivered_contacts',
  read: 'read_contacts',
  replied: 'replied_contacts',
};

/** Each receipt as a condition on the contact's columns (a whitelist: no text of the request reaches the SQL). */
const RECEIPT_CONDITIONS: Record<ContactReceipt, string> = {
  DELIVERED: RECEIVED.delivered,
  READ: RECEIVED.read,
  REPLIED: RECEIVED.replied,
  NOT_DELIVERED: RECEIVED.notDelivered,
};

const CONTACT_COLUMNS = `c.id, c.phone_number AS "phoneNumber", c.name, c.status, c.sent_at AS "sentAt",
  c.failed_at AS "failedAt", c.failure_reason AS "failureReason", c.failure_kind AS "failureKind",
  c.delivered_at AS "deliveredAt", c.read_at AS "readAt", c.played_at AS "playedAt",
  c.replied_at AS "repliedAt", s.gateway_instance AS "senderInstance"`;

/** How many contacts the export reads from its cursor at a time. */
const EXPORT_BATCH = 1000;

/**
 * The sending rows of a campaign, and the ids their contacts lie between: a pool's senders'
 * contacts are inserted together, so a scan in id order (the list's) stays within them.
 */
interface SendingRows {
  ids: number[];
  first: string | null;
  last: string | null;
}

const SENDING_ROWS_AND_BOUNDS = `
  SELECT coalesce(array_agg(k.id), '{}') AS ids,
         min((SELECT min(c.id) FROM campaign_contacts c WHERE c.campaign_id = k.id)) AS first,
         max((SELECT max(c.id) FROM campaign_contacts c WHERE c.campaign_id = k.id)) AS last
    FROM campaigns k WHERE k.id IN (${SENDING_ROWS_OF('$1')})`;

/**
 * The contacts of the sending rows (their ids; for a pool's senders, within their bounds) of
 * the company that match `filters`, with their parameters. The ids go in as a value, not a
 * subquery, so that the planner weighs them with the table's statistics. The search's
 * conditions are the ones the indexes serve: digits on campaign_contacts_campaign_phone_key,
 * a name on campaign_contacts_name_search_idx (trigrams of folded_name, the stored
 * folded_text(name), which the re-check of each match reads instead of folding it again).
 */
function filteredContacts(
  rows: SendingRows,
  companyId: number,
  filters: CampaignContactFilters,
): { where: string; params: unknown[] } {
  const params: unknown[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const conditions = [
    `c.campaign_id = ANY (${bind(rows.ids)}::int[])`,
    `c.company_id = ${bind(companyId)}`,
  ];
  // One campaign's own index serves it better; the bounds would only blur the estimates.
  if (rows.ids.length > 1) {
    conditions.push(`c.id BETWEEN ${bind(rows.first)} AND ${bind(rows.last)}`);
  }
  if (filters.status) {
    conditions.push(`c.status = ANY (${bind(CONTACT_STATUSES_SHOWN_AS[filters.status])})`);
  }
  if (filters.receipt) {
    conditions.push(RECEIPT_CONDITIONS[filters.receipt]);
  }
  if (filters.failureKind) {
    // Only FAILED contacts have a kind (a CHECK says so); saying it lets the planner take
    // campaign_contacts_failure_kind_idx, which holds the FAILED ones only.
    conditions.push(`c.status = 'FAILED' AND c.failure_kind = ${bind(filters.failureKind)}`);
  }
  const search = filters.search;
  if (search && 'phoneDigits' in search) {
    conditions.push(`c.phone_number LIKE ${bind(likeContaining(search.phoneDigits))}`);
  } else if (search) {
    conditions.push(`c.folded_name LIKE folded_text(${bind(likeContaining(search.name))})`);
  }
  return { where: conditions.join(' AND '), params };
}

/** A campaign's contacts as people read them: through its own row or its pool's senders. */
@Injectable()
export class CampaignContactsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The page and the filtered total run at once, each on a connection of its own. */
  async contactsPage(
    companyId: number,
    campaignId: number,
    filters: CampaignContactFilters,
    page: { page: number; size: number },
  ): Promise<{ items: CampaignContactRow[]; total: number }> {
    const rows = await onReadPool(this.dataSource, (reader) =>
      this.sendingRows(reader, campaignId),
    );
    if (rows.first === null) {
      return { items: [], total: 0 };
    }
    const { where, params } = filteredContacts(rows, companyId, filters);
    const next = params.length + 1;
    const [items, total] = await Promise.all([
      onReadPool(this.dataSource, (reader) =>
        reader.query<CampaignContactRow[]>(
          `SELECT ${CONTACT_COLUMNS}, c.retry_count AS "retryCount",
                c.delivery_error AS "deliveryError", c.sent_text AS "sentText", c.warm,
                s.gateway_config_id AS "senderGatewayConfigId"
           FROM campaign_contacts c JOIN campaigns s ON s.id = c.campaign_id
          WHERE ${where}
          ORDER BY c.id LIMIT $${next} OFFSET $${next + 1}`,
          [...params, page.size, page.page * page.size],
        ),
      ),
      onReadPool(this.dataSource, (reader) =>
        this.total(reader, rows, companyId, filters, { where, params }),
      ),
    ]);
    return { items, total };
  }

  /**
   * The contacts `filters` match, in the list's order, `EXPORT_BATCH` at a time from a cursor
   * of one read-only transaction (one plan, one snapshot, whatever the pool's senders). The
   * caller's stopping early (a client gone) ends the transaction and frees the connection.
   */
  async *exportRows(
    companyId: number,
    campaignId: number,
    filters: CampaignContactFilters,
  ): AsyncGenerator<CampaignContactExportRow[]> {
    const runner = this.dataSource.createQueryRunner('slave');
    try {
      await runner.query('START TRANSACTION READ ONLY');
      const rows = await this.sendingRows(runner.manager, campaignId);
      if (rows.first === null) {
        return;
      }
      const { where, params } = filteredContacts(rows, companyId, filters);
      await runner.query(
        `DECLARE contacts_export NO SCROLL CURSOR FOR
         SELECT ${CONTACT_COLUMNS}, (b.id IS NOT NULL) AS "optedOut"
           FROM campaign_contacts c JOIN campaigns s ON s.id = c.campaign_id
           LEFT JOIN blocked_contacts b
             ON b.company_id = c.company_id AND b.phone_number = c.phone_number
            AND b.is_active AND b.blocked_by = 'OPT_OUT'
          WHERE ${where}
          ORDER BY c.id`,
        params,
      );
      for (;;) {
        const rows = (await runner.query(
          `FETCH ${EXPORT_BATCH} FROM contacts_export`,
        )) as CampaignContactExportRow[];
        if (rows.length > 0) {
          yield rows;
        }
        if (rows.length < EXPORT_BATCH) {
          break;
        }
      }
    } finally {
      await runner.query('ROLLBACK').catch(() => undefined);
      await runner.release();
    }
  }

  private async sendingRows(reader: EntityManager, campaignId: number): Promise<SendingRows> {
    const [rows] = await reader.query<SendingRows[]>(SENDING_ROWS_AND_BOUNDS, [campaignId]);
    return rows;
  }

  /**
   * The sending rows' counter when one holds the filtered total (no read of the contacts),
   * else the count of the contacts the filters match.
   */
  private async total(
    reader: EntityManager,
    rows: SendingRows,
    companyId: number,
    filters: CampaignContactFilters,
    matching: { where: string; params: unknown[] },
  ): Promise<number> {
    const counter = counterOf(filters);
    const totals: Array<{ total: number }> = counter
      ? await reader.query(
          `SELECT coalesce(sum(${COUNTER_SUMS[counter]}), 0)::int AS total
             FROM campaigns WHERE id = ANY ($1::int[]) AND company_id = $2`,
          [rows.ids, companyId],
        )
      : await reader.query(
          `SELECT count(*)::int AS total FROM campaign_contacts c WHERE ${matching.where}`,
          matching.params,
        );
    return totals[0]?.total ?? 0;
  }
}
