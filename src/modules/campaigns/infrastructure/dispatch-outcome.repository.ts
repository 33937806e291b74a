import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { AppConfig } from '../../../config/app-config.service';
import { execute, queryPrepared, queryRows } from '../../../database/query-rows';
import { releaseHoldSql } from '../../gateway/infrastructure/instance-pacing.sql';
import { statusesAllowing } from '../domain/campaign-status';
import type {
  CampaignCounters,
  ContactFailure,
  Delivery,
  DeliveryRecorded,
  FailedContactCounters,
  Requeue,
} from '../domain/dispatch-records';
import { CAMPAIGN_MOVE, COUNTER_COLUMNS, MOVE, UNFINISHED } from './dispatch.sql';
import { SENT_STAMP } from './system-contacts-feed.sql';

/**
 * The lease ends with the delivery when the turn ends ($8) while this worker ($5) holds it and
 * the processed count stays below the next milestone ($9): a progress event or the completion
 * keeps it for the transaction that writes them. Read against the row before the update.
 */
const TURN_ENDS = `(locked_by = $5 AND $8::boolean AND sent_contacts + failed_contacts + moved.n < $9::int)`;

/** How the engine stops a campaign: it fails, or it pauses for a person to look. */
export type EngineStop = 'fail' | 'pause';

/** What each stop writes besides the lease: its status, its reason ($3) and its time. */
const STOP_COLUMNS: Record<EngineStop, string> = {
  fail: `status = ${CAMPAIGN_MOVE.fail.to}, failure_reason = $3, completed_at = now(), next_send_at = NULL`,
  pause: `status = ${CAMPAIGN_MOVE.pause.to}, pause_reason = $3, paused_at = now(), internal_error_streak = 0`,
};

/**
 * What a send's outcome writes: the contact's transition (guarded by the statuses the
 * transition table allows it from) and the campaign's counters, which move in the same
 * statement as the row they count, by the rows that moved; then the campaign's own moves
 * (progress, completion, failure, the engine's pause). What the contact's outcome decides
 * about the campaign's next send is written only while the worker holds the lease.
 */
@Injectable()
export class DispatchOutcomeRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /**
   * A delivered message in one statement (`tx` null: on its own, a prepared statement): the
   * contact SENT (from SENDING, or from UNCERTAIN when the send outlived its lease and another
   * worker is reconciling it: it did go out) and the sent counter by the rows that moved; while
   * `workerId` holds the lease, a long pause due after it (`delivery.waitingReason`) becomes
   * the campaign's next send time, by the database clock. The pause after an ordinary message
   * is kept on the instance (its last message and where the pause fell, `pauseDraw`), not on the
   * campaign: the campaign row keeps its next_send_at, so that this write touches none of its
   * indexes. When the turn ends with it (see Delivery.endsTurn), the lease and the instance are
   * given back, the instance's pause begins and the turn's messages are counted for its day,
   * in the same statement.
   */
  async recordDelivered(
    tx: Transaction | null,
    campaignId: number,
    workerId: string,
    delivery: Delivery,
  ): Promise<DeliveryRecorded> {
    const sql = `WITH sent AS (
         UPDATE campaign_contacts SET status = ${MOVE.deliver.to}, ${SENT_STAMP}, sent_at = now(), gateway_message_id = $3,
                reconcile_at = NULL, sent_text = $4
          WHERE id = $2 AND campaign_id = $1 AND status IN (${MOVE.deliver.from})
          RETURNING id),
       moved AS (SELECT count(*)::int AS n FROM sent),
       campaign AS (
         UPDATE campaigns
            SET sent_contacts = sent_contacts + moved.n, last_turn_at = now(),
                next_send_at = CASE WHEN locked_by = $5 AND status = 'ACTIVE' AND $7::varchar IS NOT NULL
                                    THEN now() + make_interval(secs => $6::float) ELSE next_send_at END,
                waiting_reason = CASE WHEN locked_by = $5 THEN $7::varchar END,
                disconnected_since = CASE WHEN locked_by = $5 THEN NULL ELSE disconnected_since END,
                internal_error_streak = CASE WHEN locked_by = $5 THEN 0 ELSE internal_error_streak END,
                send_failure_streak = CASE WHEN moved.n > 0 THEN 0 ELSE send_failure_streak END,
                watched_sends = watched_sends + moved.n,
                locked_by = CASE WHEN ${TURN_ENDS} THEN NULL ELSE locked_by END,
                locked_until = CASE WHEN ${TURN_ENDS} THEN NULL ELSE locked_until END,
                updated_at = now()
           FROM moved
          WHERE id = $1
          RETURNING ${COUNTER_COLUMNS}, locked_by IS NOT DISTINCT FROM $5 AS "leaseHeld",
                    moved.n > 0 AS "contactMoved"),
       released AS (
         UPDATE instance_pacing p SET ${releaseHoldSql('$5', '$10::int', '$11', '$12::float')}
           FROM campaign
          WHERE NOT campaign."leaseHeld"
            AND p.gateway_config_id = (SELECT gateway_config_id FROM campaigns WHERE id = $1))
       SELECT * FROM campaign`;
    const values = [
      campaignId,
      delivery.contactId,
      delivery.messageId,
      delivery.text,
      workerId,
      delivery.pauseSeconds,
      delivery.waitingReason,
      delivery.endsTurn,
      delivery.milestoneCount,
      delivery.turnMessages,
      this.config.appTimezone,
      delivery.pauseDraw,
    ];
    const rows = tx
      ? await queryRows<DeliveryRecorded>(tx, sql, values)
      : await queryPrepared<DeliveryRecorded>(
          this.dataSource,
          'dispatch_record_delivered',
          sql,
          values,
        );
    return rows[0];
  }

  /**
   * The contact FAILED (not to be sent) with its kind, counted in the same statement with what
   * the domain says it adds to the watched counters (watched-counts.ts; ban-signals.ts reads
   * them): `contactMoved`, the contact's row moved (it was counted).
   */
  async failContact(
    tx: Transaction,
    campaignId: number,
    contactId: string,
    failure: ContactFailure,
  ): Promise<FailedContactCounters> {
    const rows = await queryRows<FailedContactCounters>(
      tx,
      `WITH failed AS (
         UPDATE campaign_contacts SET status = ${MOVE.fail.to}, failed_at = now(), failure_reason = left($3, 500),
                failure_kind = $4
          WHERE id = $2 AND campaign_id = $1 AND status IN (${MOVE.fail.from})
          RETURNING id),
       moved AS (SELECT count(*)::int AS n FROM failed)
       UPDATE campaigns
          SET failed_contacts = failed_contacts + moved.n,
              send_failure_streak = send_failure_streak + $5::int * moved.n,
              watched_sends = watched_sends + $6::int * moved.n,
              watched_refusals = watched_refusals + $7::int * moved.n,
              updated_at = now()
         FROM moved
        WHERE campaigns.id = $1
        RETURNING ${COUNTER_COLUMNS}, moved.n > 0 AS "contactMoved",
                  send_failure_streak AS "sendFailureStreak", watched_sends AS "watchedSends",
                  watched_refusals AS "watchedRefusals"`,
      [
        campaignId,
        contactId,
        failure.reason,
        failure.kind,
        failure.counts.sendFailureStreak,
        failure.counts.watchedSends,
        failure.counts.watchedRefusals,
      ],
    );
    return rows[0];
  }

  /**
   * The outcome is unknown: the contact UNCERTAIN, its first look into the gateway's store
   * `firstReconcileDelayMs` after the send began. Counters do not move until it is resolved.
   * Answers whether the contact's row moved.
   */
  async doubtContact(
    tx: Transaction,
    campaignId: number,
    contactId: string,
    firstReconcileDelayMs: number,
  ): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      tx,
      `UPDATE campaign_contacts
          SET status = ${MOVE.doubt.to}, reconcile_attempts = 0,
              reconcile_at = coalesce(sending_started_at, now()) + make_interval(secs => $3::float / 1000)
        WHERE id = $2 AND campaign_id = $1 AND status IN (${MOVE.doubt.from})
        RETURNING id`,
      [campaignId, contactId, firstReconcileDelayMs],
    );
    return rows.length > 0;
  }

  /** The contact back to PENDING, its next attempt `retryInMs` from now (see Requeue). */
  async requeueContact(
    tx: Transaction,
    campaignId: number,
    contactId: string,
    requeue: Requeue,
  ): Promise<void> {
    await execute(
      tx,
      `UPDATE campaign_contacts
          SET status = ${MOVE.requeue.to}, next_attempt_at = now() + make_interval(secs => $3::float / 1000),
              retry_count = CASE WHEN $4 THEN retry_count ELSE retry_count - 1 END
        WHERE id = $2 AND campaign_id = $1 AND status IN (${MOVE.requeue.from})`,
      [campaignId, contactId, requeue.retryInMs, requeue.countAttempt],
    );
  }

  /** The 10 % milestone whose progress events were written; it never goes back. */
  async setProgressStep(tx: Transaction, campaignId: number, step: number): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns SET progress_step = $2 WHERE id = $1 AND progress_step < $2`,
      [campaignId, step],
    );
  }

  /** COMPLETED, when no contact is unfinished; null when it may not complete. */
  async complete(tx: Transaction, campaignId: number): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      tx,
      `UPDATE campaigns SET status = ${CAMPAIGN_MOVE.complete.to}, completed_at = now(), next_send_at = NULL,
              locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
          AND NOT EXISTS (SELECT 1 FROM campaign_contacts
                           WHERE campaign_id = $1 AND status IN (${UNFINISHED}))
        RETURNING ${COUNTER_COLUMNS}`,
      [campaignId, statusesAllowing('complete')],
    );
    return rows[0] ?? null;
  }

  /**
   * The engine stops the campaign with its reason: FAILED, or its own pause (our repeated
   * errors, a deactivated company, a ban signal); the lease ends with it. Null when the move
   * no longer applies (the campaign is no longer running).
   */
  async stop(
    tx: Transaction,
    campaignId: number,
    how: EngineStop,
    reason: string,
  ): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      tx,
      `UPDATE campaigns SET ${STOP_COLUMNS[how]}, locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
        RETURNING ${COUNTER_COLUMNS}`,
      [campaignId, statusesAllowing(how), reason],
    );
    return rows[0] ?? null;
  }
}
