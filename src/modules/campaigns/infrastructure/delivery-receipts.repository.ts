import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryRows } from '../../../database/query-rows';
import { wakeSettledCampaigns } from './reconciliation.repository';
import { CAMPAIGN_CONTACT_LIFECYCLE } from '../domain/campaign-contact-status';
import {
  AppliedReceipts,
  BilledMessage,
  CallbackReceipt,
  notDeliveredReason,
  Receipt,
  REFUSAL_KINDS,
  RefusedSend,
} from '../domain/delivery-receipt';
import { SENDING_TRANSACTION, SENT_STAMP } from './system-contacts-feed.sql';

interface MovedContact extends RefusedSend {
  keyId: string;
  refused: boolean;
}

const REFUSE = CAMPAIGN_CONTACT_LIFECYCLE.sql('refuse');
const ARRIVE = CAMPAIGN_CONTACT_LIFECYCLE.sql('arrive');
const DELIVER = CAMPAIGN_CONTACT_LIFECYCLE.sql('deliver');

/** The code's own constants (REFUSAL_KINDS), never input. */
const REFUSED_KINDS = REFUSAL_KINDS.map((kind) => `'${kind}'`).join(', ');
/** What an error after acceptance writes on a contact (a constant, never input). */
const DELIVERY_ERROR = 'o WhatsApp informou um erro depois de aceitar a mensagem';

/**
 * One statement for a batch of receipts ($1 key ids, $2 companies, $3 ranks, $4 times, $5 the
 * refusal's reason, $6 its code, $7 its failure kind, $8 the category Meta charged it at): the
 * contacts' times, refusals, late arrivals and billed categories, and their campaigns'
 * counters. Only a contact the receipts change is written (`fills`, refused, arrived): a
 * status applied twice, or one that says nothing new, costs a lookup and no row version. The
 * billed category is written in the same row version as the times, not in a second one.
 */
const APPLY_RECEIPTS = `WITH receipt AS (
         SELECT key_id, company_id, max(rank) AS rank, max(at) AS at, bool_or(rank = 0) AS error,
                max(reason) AS reason, max(code) AS code, max(kind) AS kind, max(category) AS category
           FROM unnest($1::text[], $2::int[], $3::int[], $4::timestamptz[], $5::text[], $6::text[],
                       $7::text[], $8::text[])
                AS r(key_id, company_id, rank, at, reason, code, kind, category)
          GROUP BY key_id, company_id),
       old AS (
         SELECT c.id, c.campaign_id, c.company_id, c.gateway_message_id, c.delivered_at, c.read_at, c.warm,
                r.rank, r.at, r.error, r.reason, r.code, r.kind, r.category,
                c.status IN (${REFUSE.from}) AND r.error AND r.rank < 3 AND c.delivered_at IS NULL AS refused,
                c.status IN (${ARRIVE.from}) AND r.rank >= 3 AS arrived,
                (r.rank >= 3 AND c.delivered_at IS NULL) OR (r.rank >= 4 AND c.read_at IS NULL)
                  OR (r.rank >= 5 AND c.played_at IS NULL)
                  OR (r.error AND r.rank < 3 AND c.delivery_error IS DISTINCT FROM '${DELIVERY_ERROR}')
                  OR (r.category IS NOT NULL AND c.billed_category IS NULL) AS fills
           FROM campaign_contacts c JOIN receipt r
             ON c.gateway_message_id = r.key_id AND c.company_id = r.company_id
          WHERE c.status = 'SENT' OR (c.status = 'FAILED' AND c.failure_kind IN (${REFUSED_KINDS}))
          FOR UPDATE OF c),
       moved AS (
         UPDATE campaign_contacts c
            SET delivered_at = CASE WHEN o.rank >= 3 THEN coalesce(c.delivered_at, o.at) ELSE c.delivered_at END,
                read_at = CASE WHEN o.rank >= 4 THEN coalesce(c.read_at, o.at) ELSE c.read_at END,
                played_at = CASE WHEN o.rank >= 5 THEN coalesce(c.played_at, o.at) ELSE c.played_at END,
                delivery_error = CASE WHEN o.error AND o.rank < 3 THEN '${DELIVERY_ERROR}'
                                      ELSE c.delivery_error END,
                status = CASE WHEN o.refused THEN ${REFUSE.to} WHEN o.arrived THEN ${ARRIVE.to} ELSE c.status END,
                failure_kind = CASE WHEN o.refused THEN coalesce(o.kind, 'not_delivered') WHEN o.arrived THEN NULL
                                    ELSE c.failure_kind END,
                failure_reason = CASE WHEN o.refused THEN left(o.reason, 500) WHEN o.arrived THEN NULL
                                      ELSE c.failure_reason END,
                failed_at = CASE WHEN o.refused THEN o.at WHEN o.arrived THEN NULL ELSE c.failed_at END,
                billed_category = coalesce(c.billed_category, o.category),
                sent_xid = CASE WHEN o.arrived THEN ${SENDING_TRANSACTION} ELSE c.sent_xid END
           FROM old o
          WHERE c.id = o.id AND (o.fills OR o.refused OR o.arrived)
          RETURNING o.campaign_id, o.refused, o.arrived,
                    (o.delivered_at IS NULL AND o.rank >= 3) AS newly_delivered,
                    (o.read_at IS NULL AND o.rank >= 4) AS newly_read),
       counted AS (
         UPDATE campaigns k
            SET delivered_contacts = delivered_contacts + s.delivered, read_contacts = read_contacts + s.read,
                sent_contacts = sent_contacts - s.refused + s.arrived,
                failed_contacts = failed_contacts + s.refused - s.arrived
           FROM (SELECT campaign_id, count(*) FILTER (WHERE newly_delivered)::int AS delivered,
                        count(*) FILTER (WHERE newly_read)::int AS read,
                        count(*) FILTER (WHERE refused)::int AS refused,
                        count(*) FILTER (WHERE arrived)::int AS arrived
                   FROM moved GROUP BY campaign_id) s
          WHERE k.id = s.campaign_id AND (s.delivered > 0 OR s.read > 0 OR s.refused > 0 OR s.arrived > 0)
          RETURNING k.id, k.company_id, k.gateway_config_id)
       SELECT old.gateway_message_id AS "keyId", old.refused, old.warm, old.code,
              old.campaign_id AS "campaignId", old.company_id AS "companyId",
              counted.gateway_config_id AS "gatewayConfigId"
         FROM old LEFT JOIN counted ON counted.id = old.campaign_id`;

/**
 * Receipts, set-based: a batch of messages.update events is one statement that moves each
 * contact's delivered/read/played times forward (never back, READ implying delivered) and
 * counts, per campaign, the contacts that became delivered or read in it. An ERROR for a
 * message not delivered makes its contact FAILED `not_delivered` (refuse); a delivery receipt
 * for such a contact makes it SENT again (arrive), so the outcome is the same in any order.
 */
@Injectable()
export class DeliveryReceiptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Applies the receipts and records what Meta charged for (`billed`, see recordBilled) in the
   * same statement: the key ids that matched a contact (others may come early), and the
   * refusals. A billed message whose receipt matched no contact here is recorded apart.
   */
  async apply(
    tx: Transaction,
    receipts: Receipt[],
    billed: BilledMessage[] = [],
  ): Promise<AppliedReceipts> {
    if (receipts.length === 0) {
      await this.recordBilled(tx, billed);
      return { matched: new Set(), refused: [] };
    }
    const categoryOf = new Map(billed.map((m) => [billingKey(m), m.category]));
    const rows = await queryRows<MovedContact>(tx, APPLY_RECEIPTS, [
      receipts.map((r) => r.keyId),
      receipts.map((r) => r.companyId),
      receipts.map((r) => r.rank),
      receipts.map((r) => r.at),
      receipts.map((r) => (r.rank === 0 ? notDeliveredReason(r.code, r.title) : null)),
      receipts.map((r) => r.code),
      receipts.map((r) => (r.rank === 0 ? (r.refusalKind ?? null) : null)),
      receipts.map((r) => categoryOf.get(billingKey(r)) ?? null),
    ]);
    const applied = new Set(rows.map(billingKey));
    await this.recordBilled(
      tx,
      billed.filter((m) => !applied.has(billingKey(m))),
    );
    return {
      matched: new Set(rows.map((row) => row.keyId)),
      refused: rows
        .filter((row) => row.refused)
        .map(({ companyId, gatewayConfigId, campaignId, warm, code }) => ({
          companyId,
          gatewayConfigId,
          campaignId,
          warm,
          code,
        })),
    };
  }

  /**
   * The category each message was charged at, on its contact, the first time a status says
   * so (later statuses of the message change nothing): what the reports count and price.
   */
  async recordBilled(tx: Transaction, messages: BilledMessage[]): Promise<void> {
    if (messages.length === 0) {
      return;
    }
    await execute(
      tx,
      `UPDATE campaign_contacts c SET billed_category = b.category
         FROM unnest($1::int[], $2::text[], $3::text[]) AS b(company_id, key_id, category)
        WHERE c.gateway_message_id = b.key_id AND c.company_id = b.company_id
          AND c.billed_category IS NULL`,
      [
        messages.map((m) => m.companyId),
        messages.map((m) => m.keyId),
        messages.map((m) => m.category),
      ],
    );
  }

  /**
   * Uncertain sends settled by the statuses that name their contact: the first status for an
   * UNCERTAIN contact makes it SENT with that message id (as SendReconciler's resolveAsSent
   * does, counted likewise), never sent again; a contact in any other state, or an id already
   * recorded for another contact, is left alone. Answers how many were settled. Only the
   * statuses of UNCERTAIN contacts (a hash join with the few the partial index
   * campaign_contacts_reconcile_idx holds) look their message id up: a batch of statuses for
   * sent contacts costs no lookup per status.
   */
  async resolveByCallback(tx: Transaction, receipts: CallbackReceipt[]): Promise<number> {
    if (receipts.length === 0) {
      return 0;
    }
    const rows = await queryRows<{ campaignId: number; n: number }>(
      tx,
      `WITH receipt AS (
         SELECT DISTINCT ON (contact_id) contact_id, company_id, key_id, at
           FROM unnest($1::bigint[], $2::int[], $3::text[], $4::timestamptz[])
                AS r(contact_id, company_id, key_id, at)
          WHERE r.contact_id IN (SELECT u.id FROM campaign_contacts u WHERE u.status = 'UNCERTAIN')
            AND NOT EXISTS (SELECT 1 FROM campaign_contacts o WHERE o.gateway_message_id = r.key_id)
          ORDER BY contact_id, at),
       sent AS (
         UPDATE campaign_contacts c
            SET status = ${DELIVER.to}, ${SENT_STAMP}, sent_at = r.at, gateway_message_id = r.key_id, reconcile_at = NULL
           FROM receipt r
          WHERE c.id = r.contact_id AND c.company_id = r.company_id AND c.status = 'UNCERTAIN'
          RETURNING c.campaign_id),
       counted AS (
         UPDATE campaigns k SET sent_contacts = sent_contacts + s.n, updated_at = now()
           FROM (SELECT campaign_id, count(*)::int AS n FROM sent GROUP BY campaign_id) s
          WHERE k.id = s.campaign_id
          RETURNING k.id, s.n)
       SELECT id AS "campaignId", n FROM counted`,
      [
        receipts.map((r) => r.contactId),
        receipts.map((r) => r.companyId),
        receipts.map((r) => r.keyId),
        receipts.map((r) => r.at),
      ],
    );
    // A campaign whose last unfinished contact this was completes now, not at its next look.
    await wakeSettledCampaigns(
      tx,
      rows.map((row) => row.campaignId),
    );
    return rows.reduce((sum, row) => sum + row.n, 0);
  }

  /**
   * ACTIVE campaigns (a pool's senders, not the pool) of these configurations; with a template,
   * only those that send it.
   */
  async activeCampaignIds(
    companyId: number,
    gatewayConfigIds: number[],
    template?: { name: string; language: string },
  ): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT id FROM campaigns
        WHERE company_id = $1 AND gateway_config_id = ANY($2::int[]) AND status = 'ACTIVE'
          AND pool_id IS DISTINCT FROM id
          AND ($3::text IS NULL OR (template ->> 'name' = $3 AND template ->> 'language' = $4))`,
      [companyId, gatewayConfigIds, template?.name ?? null, template?.language ?? null],
    );
    return rows.map((row) => row.id);
  }

  /**
   * The campaign whose message a person answered: the latest one this gateway configuration
   * sent to one of the number's forms; its opt-outs count one more. Null when none did.
   */
  async countOptOut(
    tx: Transaction,
    companyId: number,
    gatewayConfigId: number,
    phones: string[],
  ): Promise<{ campaignId: number; automationRunId: string | null } | null> {
    const rows = await queryRows<{ campaignId: number; automationRunId: string | null }>(
      tx,
      `UPDATE campaigns SET opted_out_contacts = opted_out_contacts + 1
        WHERE id = (SELECT k.id FROM campaigns k
                      JOIN campaign_contacts c ON c.campaign_id = k.id AND c.phone_number = ANY($3)
                     WHERE k.company_id = $1 AND k.gateway_config_id = $2 AND c.status = 'SENT'
                     ORDER BY c.sent_at DESC LIMIT 1)
        RETURNING coalesce(pool_id, id) AS "campaignId", automation_run_id AS "automationRunId"`,
      [companyId, gatewayConfigId, phones],
    );
    return rows[0] ?? null;
  }

  /**
   * ACTIVE campaigns of the configuration wait for the instance (which reconnects by itself),
   * and say so; one a send proved never paired keeps saying that.
   */
  async holdForClosedInstance(gatewayConfigId: number, recheckSeconds: number): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE campaigns SET disconnected_since = coalesce(disconnected_since, now()),
              waiting_reason = CASE WHEN disconnected_since IS NOT NULL
                                         AND waiting_reason = 'INSTANCE_NOT_PAIRED'
                                    THEN waiting_reason ELSE 'INSTANCE_DISCONNECTED' END,
              next_send_at = greatest(next_send_at, now() + make_interval(secs => $2))
        WHERE gateway_config_id = $1 AND status = 'ACTIVE' AND pool_id IS DISTINCT FROM id
        RETURNING id`,
      [gatewayConfigId, recheckSeconds],
    );
    return rows.length;
  }

  /** The instance is back: campaigns that waited for it are due at once. */
  async releaseForOpenInstance(gatewayConfigId: number): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE campaigns SET next_send_at = now()
        WHERE gateway_config_id = $1 AND status = 'ACTIVE' AND disconnected_since IS NOT NULL
          AND pool_id IS DISTINCT FROM id
        RETURNING id`,
      [gatewayConfigId],
    );
    return rows.length;
  }

  /** Campaigns that can still send through the configuration (ACTIVE or PAUSED; a pool's senders). */
  async liveCampaignIds(gatewayConfigId: number): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT id FROM campaigns WHERE gateway_config_id = $1 AND status IN ('ACTIVE', 'PAUSED')
          AND pool_id IS DISTINCT FROM id`,
      [gatewayConfigId],
    );
    return rows.map((row) => row.id);
  }
}

/** A message's key in a batch: its company and the gateway's message id. */
function billingKey(message: { companyId: number; keyId: string }): string {
  return `${message.companyId}:${message.keyId}`;
}
