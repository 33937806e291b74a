import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryPrepared, queryRows } from '../../../database/query-rows';
import type {
  BatchDelivered,
  ContactToSend,
  DeliveredContact,
  DispatchCampaign,
} from '../domain/dispatch-records';
import {
  COUNTER_COLUMNS,
  MOVE,
  RENEW_LEASE,
  TAKE_SET,
  TAKEN_CONTACT_COLUMNS,
} from './dispatch.sql';
import { SENT_STAMP } from './system-contacts-feed.sql';

/** A contact as the take's JSON carries it (TAKEN_CONTACT_COLUMNS). */
interface TakenContactJson {
  contactId: string | number;
  contactPhoneNumber: string;
  contactName: string;
  contactAttempts: number;
  contactBlocked: boolean;
}

/**
 * The engine's statements for a turn at a number's throughput (application/throughput-turns.ts):
 * many contacts taken in one statement, many deliveries recorded in one. The same moves and
 * guards as the one-contact statements of DispatchClaimRepository and DispatchOutcomeRepository.
 */
@Injectable()
export class DispatchBatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * In one committed statement: renews `workerId`'s lease on the campaign and, while it is
   * ACTIVE and its number under no reach-out lock, marks up to `size` ready contacts SENDING in
   * id order, after `afterId` (rows another statement is taking are skipped). The campaign is
   * null when the lease is not this worker's; no contacts when none may be sent now (the
   * dispatcher settles why). `afterId`, the turn's last contact so far, starts the read past the
   * ones the turn sent: with one big campaign the planner reads ready contacts in key order, and
   * would otherwise pass every contact already sent on each take.
   */
  async takeContacts(
    campaignId: number,
    workerId: string,
    leaseSeconds: number,
    batch: { size: number; afterId: string | null },
  ): Promise<{ campaign: DispatchCampaign | null; contacts: ContactToSend[] }> {
    const rows = await queryPrepared<DispatchCampaign & { taken: TakenContactJson[] }>(
      this.dataSource,
      'dispatch_take_contacts',
      `WITH campaign AS (${RENEW_LEASE}),
       ready AS (
         SELECT id FROM campaign_contacts
          WHERE campaign_id = $1 AND status IN (${MOVE.take.from}) AND id > coalesce($5::bigint, 0)
            AND (next_attempt_at IS NULL OR next_attempt_at <= now())
            AND EXISTS (SELECT 1 FROM campaign k JOIN gateway_configs g ON g.id = k."gatewayConfigId"
                         WHERE k.status = 'ACTIVE' AND k."lockedBy" = $2
                           AND g.reachout_lock_scope IS NULL)
          ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED),
       taken AS (
         UPDATE campaign_contacts c SET ${TAKE_SET}
           FROM ready WHERE c.id = ready.id
          RETURNING ${TAKEN_CONTACT_COLUMNS})
       SELECT campaign.*, (SELECT coalesce(json_agg(taken ORDER BY taken."contactId"), '[]') FROM taken) AS taken
         FROM campaign`,
      [campaignId, workerId, leaseSeconds, batch.size, batch.afterId],
    );
    const row = rows[0];
    if (!row) {
      return { campaign: null, contacts: [] };
    }
    const { taken, ...campaign } = row;
    return { campaign, contacts: taken.map(contactOf) };
  }

  /**
   * Delivered messages in one statement (`tx` null: on its own, a prepared statement): each
   * contact SENT (from SENDING, or UNCERTAIN when another worker is reconciling it: it did go
   * out) with its message key and text, the sent counter by the rows that moved, and, while
   * `workerId` holds the lease, the campaign's waits and streaks cleared as after any delivery.
   * The lease itself is left as it is: the turn goes on.
   */
  async recordDelivered(
    tx: Transaction | null,
    campaignId: number,
    workerId: string,
    delivered: DeliveredContact[],
  ): Promise<BatchDelivered> {
    const sql = `WITH delivered AS (
         SELECT * FROM unnest($2::bigint[], $3::varchar[], $4::text[]) AS d(id, message_id, sent_text)),
       sent AS (
         UPDATE campaign_contacts c SET status = ${MOVE.deliver.to}, ${SENT_STAMP}, sent_at = now(),
                gateway_message_id = d.message_id, reconcile_at = NULL, sent_text = d.sent_text
           FROM delivered d
          WHERE c.id = d.id AND c.campaign_id = $1 AND c.status IN (${MOVE.deliver.from})
          RETURNING c.id),
       moved AS (SELECT count(*)::int AS n FROM sent)
       UPDATE campaigns
          SET sent_contacts = sent_contacts + moved.n, last_turn_at = now(),
              waiting_reason = CASE WHEN locked_by = $5 THEN NULL ELSE waiting_reason END,
              disconnected_since = CASE WHEN locked_by = $5 THEN NULL ELSE disconnected_since END,
              internal_error_streak = CASE WHEN locked_by = $5 THEN 0 ELSE internal_error_streak END,
              send_failure_streak = CASE WHEN moved.n > 0 THEN 0 ELSE send_failure_streak END,
              watched_sends = watched_sends + moved.n,
              updated_at = now()
         FROM moved
        WHERE id = $1
        RETURNING ${COUNTER_COLUMNS}, locked_by IS NOT DISTINCT FROM $5 AS "leaseHeld",
                  moved.n AS "contactsMoved"`;
    const values = [
      campaignId,
      delivered.map((d) => d.contactId),
      delivered.map((d) => d.messageId),
      delivered.map((d) => d.text),
      workerId,
    ];
    const rows = tx
      ? await queryRows<BatchDelivered>(tx, sql, values)
      : await queryPrepared<BatchDelivered>(
          this.dataSource,
          'dispatch_record_delivered_batch',
          sql,
          values,
        );
    return rows[0];
  }

  /**
   * Contacts taken but never sent (the turn ended before their slot) back to PENDING, ready at
   * once and untouched: no attempt counts.
   */
  async putBack(campaignId: number, contactIds: string[]): Promise<void> {
    await execute(
      this.dataSource,
      `UPDATE campaign_contacts SET status = ${MOVE.requeue.to}, next_attempt_at = now(),
              retry_count = retry_count - 1
        WHERE id = ANY($2::bigint[]) AND campaign_id = $1 AND status IN (${MOVE.requeue.from})`,
      [campaignId, contactIds],
    );
  }
}

function contactOf(row: TakenContactJson): ContactToSend {
  return {
    id: String(row.contactId),
    phoneNumber: row.contactPhoneNumber,
    name: row.contactName,
    attempts: row.contactAttempts,
    blocked: row.contactBlocked,
  };
}
