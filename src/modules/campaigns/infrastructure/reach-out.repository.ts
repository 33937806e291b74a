import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryRows } from '../../../database/query-rows';

/** Campaigns whose instance's reach-out lock they wait for (CampaignDispatcher sets it). */
export const REACHOUT_LOCKED = 'REACHOUT_LOCKED';

/** A message a person wrote to an instance; `ref` names it in the answer. */
export interface InboundMessage {
  ref: number;
  companyId: number;
  gatewayConfigId: number;
  /** The phone's forms (a Brazilian mobile with and without its ninth digit). */
  phones: string[];
  at: Date;
  replyWindowHours: number;
}

/** A campaign contact's first reply, as recordInbound found it: the message `ref`. */
export interface RecordedReply {
  ref: number;
  campaignId: number;
  automationRunId: string | null;
  phoneNumber: string;
  repliedAt: Date;
}

/**
 * What the number hears back, for campaigns: when each person last wrote to each instance
 * (contact_conversations, which makes them warm), the reply a campaign contact sent, and what
 * the reach-out lock reads and moves (the instance's last sends to cold contacts, the campaigns
 * an instance-wide lock holds, and the ones its end wakes).
 */
@Injectable()
export class ReachOutRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * How many of the instance's last `sample` sends to cold contacts WhatsApp refused: each of
   * its recent campaigns' last sends (campaign_contacts_cold_sent_idx), then the latest of all.
   */
  async coldRefusedInSample(
    tx: Transaction,
    gatewayConfigId: number,
    sample: number,
  ): Promise<number> {
    const rows = await queryRows<{ refused: number }>(
      tx,
      `SELECT count(*) FILTER (WHERE last.failure_kind = 'not_delivered')::int AS refused
         FROM (SELECT s.failure_kind FROM campaigns k
                CROSS JOIN LATERAL (
                  SELECT c.sent_at, c.failure_kind FROM campaign_contacts c
                   WHERE c.campaign_id = k.id AND c.sent_at IS NOT NULL AND NOT c.warm
                   ORDER BY c.sent_at DESC LIMIT $2) AS s
               WHERE k.gateway_config_id = $1
                 AND (k.status IN ('ACTIVE', 'PAUSED') OR k.completed_at > now() - interval '7 days')
               ORDER BY s.sent_at DESC LIMIT $2) AS last`,
      [gatewayConfigId, sample],
    );
    return rows[0]?.refused ?? 0;
  }

  /**
   * People wrote to the instances, in one statement for the whole batch: each conversation is
   * recorded (the latest time kept), each person's PENDING contacts in the instance's
   * unfinished campaigns become warm, and for each message the latest campaign contact the
   * instance sent that person within its reply window before it has replied, once (the first
   * such message of the batch), counted on its campaign. Answers those first replies.
   */
  async recordInbound(tx: Transaction, messages: InboundMessage[]): Promise<RecordedReply[]> {
    const forms = messages.flatMap((message) =>
      message.phones.map((phone) => ({ ...message, phone })),
    );
    if (forms.length === 0) {
      return [];
    }
    return queryRows<RecordedReply>(
      tx,
      `WITH input AS (
         SELECT * FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::timestamptz[], $6::int[])
                AS i(ref, config, company, phone, at, window_hours)),
       heard AS (
         INSERT INTO contact_conversations (gateway_config_id, phone_key, company_id, last_inbound_at)
         SELECT config, phone_match_key(phone), min(company), max(at) FROM input
          GROUP BY config, phone_match_key(phone)
         ON CONFLICT (gateway_config_id, phone_key) DO UPDATE
           SET last_inbound_at = greatest(contact_conversations.last_inbound_at, excluded.last_inbound_at)),
       warmed AS (
         UPDATE campaign_contacts c SET warm = true
           FROM (SELECT DISTINCT config, company, phone FROM input) i, campaigns k
          WHERE k.gateway_config_id = i.config AND k.company_id = i.company
            AND k.status IN ('DRAFT', 'SCHEDULED', 'ACTIVE', 'PAUSED')
            AND c.campaign_id = k.id AND c.phone_number = i.phone AND c.status = 'PENDING' AND NOT c.warm),
       latest AS (
         SELECT DISTINCT ON (i.ref) i.ref, i.at, c.id, c.replied_at
           FROM input i
           JOIN campaigns k ON k.gateway_config_id = i.config AND k.company_id = i.company
                           AND (k.status IN ('ACTIVE', 'PAUSED')
                                OR k.completed_at > i.at - make_interval(hours => i.window_hours))
           JOIN campaign_contacts c ON c.campaign_id = k.id AND c.phone_number = i.phone
          WHERE c.status = 'SENT' AND c.sent_at <= i.at
            AND c.sent_at > i.at - make_interval(hours => i.window_hours)
          ORDER BY i.ref, c.sent_at DESC),
       first AS (
         SELECT DISTINCT ON (id) id, ref, at FROM latest WHERE replied_at IS NULL ORDER BY id, at, ref),
       replied AS (
         UPDATE campaign_contacts c SET replied_at = first.at
           FROM first WHERE c.id = first.id AND c.replied_at IS NULL
          RETURNING c.campaign_id, c.phone_number, first.ref, first.at),
       counted AS (
         UPDATE campaigns k SET replied_contacts = replied_contacts + n.replies
           FROM (SELECT campaign_id, count(*)::int AS replies FROM replied GROUP BY campaign_id) n
          WHERE k.id = n.campaign_id
          RETURNING k.id, k.automation_run_id, coalesce(k.pool_id, k.id) AS shown_id)
       SELECT r.ref, counted.shown_id AS "campaignId", counted.automation_run_id AS "automationRunId",
              r.phone_number AS "phoneNumber", r.at AS "repliedAt"
         FROM replied r JOIN counted ON counted.id = r.campaign_id`,
      [
        forms.map((form) => form.ref),
        forms.map((form) => form.gatewayConfigId),
        forms.map((form) => form.companyId),
        forms.map((form) => form.phone),
        forms.map((form) => form.at),
        forms.map((form) => form.replyWindowHours),
      ],
    );
  }

  /** A lock on everything: the instance's ACTIVE campaigns wait until it ends. */
  async holdInstance(tx: Transaction, gatewayConfigId: number, until: Date): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns SET waiting_reason = '${REACHOUT_LOCKED}', next_send_at = greatest(next_send_at, $2)
        WHERE gateway_config_id = $1 AND status = 'ACTIVE' AND pool_id IS DISTINCT FROM id`,
      [gatewayConfigId, until],
    );
  }

  /** The locks ended: campaigns that waited for them are due at once. */
  async wake(gatewayConfigIds: number[]): Promise<void> {
    await execute(
      this.dataSource,
      `UPDATE campaigns SET next_send_at = now(), waiting_reason = NULL
        WHERE gateway_config_id = ANY($1::int[]) AND status = 'ACTIVE' AND waiting_reason = '${REACHOUT_LOCKED}'
          AND pool_id IS DISTINCT FROM id`,
      [gatewayConfigIds],
    );
  }

  /** The live campaigns of the instance with a notification phone, for the lock's notice. */
  async noticeRecipients(
    tx: Transaction,
    gatewayConfigId: number,
  ): Promise<
    Array<{ id: number; name: string; automationRunId: string | null; notificationPhone: string }>
  > {
    return queryRows(
      tx,
      `SELECT id, name, automation_run_id AS "automationRunId", notification_phone AS "notificationPhone"
         FROM campaigns
        WHERE id IN (SELECT coalesce(s.pool_id, s.id) FROM campaigns s
                      WHERE s.gateway_config_id = $1 AND s.status IN ('ACTIVE', 'PAUSED')
                        AND s.pool_id IS DISTINCT FROM s.id)
          AND notification_phone IS NOT NULL`,
      [gatewayConfigId],
    );
  }
}
