import { Injectable } from '@nestjs/common';
import type { SentContact } from '../application/ports/dispatch.repository';
import { queryPrepared, queryRows } from '../../../database/query-rows';
import { DataSource, EntityManager } from 'typeorm';
import { holderIsGoneSql } from '../../../common/work/worker-liveness';
import { statusLiteral } from '../../../common/state/transition-table';
import { CAMPAIGN_LIFECYCLE, statusesAllowing } from '../domain/campaign-status';
import {
  CAMPAIGN_CONTACT_LIFECYCLE,
  contactStatusesAllowing,
  UNFINISHED_CONTACT_STATUSES,
} from '../domain/campaign-contact-status';
import type { WaitingReason } from '../domain/campaign.entity';
import {
  CampaignCounters,
  ClaimedCampaign,
  ContactToSend,
  DispatchCampaign,
  DispatchRepository,
  Pauses,
  Requeue,
  RequeueResult,
  FailedContactCounters,
  ContactFailure,
} from '../application/ports/dispatch.repository';
import { DEFAULT_AUTO_PAUSE } from '../../../common/messaging/auto-pause';

interface TakenContactColumns {
  contactId: string | null;
  contactPhoneNumber: string;
  contactName: string;
  contactAttempts: number;
  contactBlocked: boolean;
}

const CAMPAIGN_COLUMNS = `
  id, company_id AS "companyId", status, type, message_content AS "messageContent", media_url AS "mediaUrl",
  media_type AS "mediaType", file_name AS "fileName", caption, poll_data AS "pollData",
  gateway_config_id AS "gatewayConfigId", database_config_id AS "databaseConfigId",
  min_interval AS "minInterval", max_interval AS "maxInterval", notification_phone AS "notificationPhone",
  name, total_contacts AS "totalContacts", sent_contacts AS "sentContacts", failed_contacts AS "failedContacts",
  progress_step AS "progressStep", started_at AS "startedAt", disconnected_since AS "disconnectedSince",
  locked_by AS "lockedBy", automation_run_id AS "automationRunId",
  long_pause_every AS "longPauseEvery", long_pause_min AS "longPauseMin", long_pause_max AS "longPauseMax",
  greatest(0, extract(epoch FROM now() - next_send_at))::float AS "sendLagSeconds"`;

/** The campaign waits for its instance (see rescheduleAndRelease), as its row is before the update. */
const WAITING_FOR_INSTANCE = `(disconnected_since IS NOT NULL
  AND waiting_reason IN ('INSTANCE_DISCONNECTED', 'INSTANCE_NOT_PAIRED'))`;
const NEVER_PAIRED = `(disconnected_since IS NOT NULL AND waiting_reason = 'INSTANCE_NOT_PAIRED')`;

const COMPANY_ACTIVE = `(SELECT is_active FROM companies WHERE companies.id = campaigns.company_id)`;

const COUNTER_COLUMNS = `total_contacts AS "totalContacts", sent_contacts AS "sentContacts",
  failed_contacts AS "failedContacts", progress_step AS "progressStep", status,
  delivered_contacts AS "deliveredContacts", read_contacts AS "readContacts"`;

/**
 * Each contact move as the transition table has it, written into the SQL as literals (they
 * come from the table, never from input): the statement texts stay constant for the prepared
 * statements, and the planner can use the partial indexes on status, which a bound array
 * parameter would hide from it.
 */
const MOVE = {
  take: CAMPAIGN_CONTACT_LIFECYCLE.sql('take'),
  deliver: CAMPAIGN_CONTACT_LIFECYCLE.sql('deliver'),
  fail: CAMPAIGN_CONTACT_LIFECYCLE.sql('fail'),
  requeue: CAMPAIGN_CONTACT_LIFECYCLE.sql('requeue'),
  doubt: CAMPAIGN_CONTACT_LIFECYCLE.sql('doubt'),
};
const FROM = {
  take: MOVE.take.from,
  deliver: MOVE.deliver.from,
  fail: MOVE.fail.from,
  requeue: MOVE.requeue.from,
  doubt: MOVE.doubt.from,
  unfinished: UNFINISHED_CONTACT_STATUSES.map(statusLiteral).join(', '),
};
/** The campaign moves the engine makes in SQL (the entity makes the others). */
const CAMPAIGN_MOVE = {
  start: CAMPAIGN_LIFECYCLE.sql('start'),
  complete: CAMPAIGN_LIFECYCLE.sql('complete'),
  fail: CAMPAIGN_LIFECYCLE.sql('fail'),
  pause: CAMPAIGN_LIFECYCLE.sql('pause'),
};

/**
 * After a message of campaign $1's gateway instance, each other ACTIVE campaign of the instance
 * waits a pause of its own, drawn in its [min, max]: the instance is quiet that long before that
 * campaign sends, and the claim's due scan stays small. `runs` says when it applies.
 */
function instanceSiblingsWait(runs: string): string {
  return `UPDATE campaigns s
             SET next_send_at = greatest(s.next_send_at, now() + make_interval(
                   secs => s.min_interval + random() * (s.max_interval - s.min_interval)))
           WHERE ${runs} AND s.status = 'ACTIVE' AND s.id <> $1
             AND s.gateway_config_id = (SELECT gateway_config_id FROM campaigns WHERE id = $1)`;
}

/** Whether the contact row `c` is on its company's active block list, when the company uses one. */
const CONTACT_IS_BLOCKED = `EXISTS (SELECT 1 FROM blocked_contacts b JOIN companies co ON co.id = b.company_id
                                     WHERE b.company_id = c.company_id AND b.phone_number = c.phone_number
                                       AND b.is_active AND co.blocked_contacts_enabled)`;

/**
 * The engine's SQL. Campaign rows are claimed with SKIP LOCKED and a lease (locked_by,
 * locked_until), taken over when the lease runs out or its holder's liveness lock is gone. A
 * contact is marked SENDING and committed before the gateway call, so it is never sent twice.
 * Every contact transition is guarded by the statuses the transition table allows it from,
 * and counters move in the same statement as the row they count, by the rows that moved. All
 * times come from the database clock.
 */
@Injectable()
export class PgDispatchRepository implements DispatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Scheduled campaigns whose time came become ACTIVE; returns them for their started events. */
  async startDueScheduled(manager: EntityManager, limit: number): Promise<DispatchCampaign[]> {
    return queryRows(
      manager,
      `UPDATE campaigns SET status = ${CAMPAIGN_MOVE.start.to}, started_at = now(), next_send_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM campaigns
                      WHERE status = ANY($1) AND scheduled_for <= now()
                      ORDER BY scheduled_for LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING ${CAMPAIGN_COLUMNS}`,
      [statusesAllowing('start'), limit],
    );
  }

  /**
   * Leases up to `limit` due ACTIVE campaigns that nobody holds or whose holder's lease ran
   * out (`expireLeasesOfGoneWorkers` ends a dead holder's lease at once). `takenOver` tells the
   * second case: only then can a contact have been left SENDING. Campaigns this worker still
   * has in flight (a send that outlived its lease) are never claimed again by it.
   */
  async claimDue(
    workerId: string,
    limit: number,
    leaseSeconds: number,
    inFlight: readonly number[],
  ): Promise<ClaimedCampaign[]> {
    if (limit <= 0) {
      return [];
    }
    // One campaign per instance, whose turn was longest ago; instances a sender holds, or that
    // sent less than the campaign's pause ago, are left out (instance_pacing, the gateway
    // module's, is only read).
    return queryRows<ClaimedCampaign>(
      this.dataSource,
      `UPDATE campaigns c SET locked_by = $1, locked_until = now() + make_interval(secs => $3)
         FROM (SELECT id, locked_by AS previous_holder FROM campaigns
                WHERE id IN (SELECT DISTINCT ON (d.gateway_config_id) d.id FROM campaigns d
                              WHERE d.status = 'ACTIVE' AND d.next_send_at <= now()
                                AND (d.locked_until IS NULL OR d.locked_until < now())
                                AND NOT (d.id = ANY($4::int[]))
                                AND NOT EXISTS (SELECT 1 FROM instance_pacing p
                                                 WHERE p.gateway_config_id = d.gateway_config_id
                                                   AND (p.held_until >= now()
                                                        OR p.last_message_at + make_interval(secs => d.min_interval) > now()))
                              ORDER BY d.gateway_config_id, d.last_turn_at NULLS FIRST, d.id)
                  AND status = 'ACTIVE' AND next_send_at <= now()
                  AND (locked_until IS NULL OR locked_until < now())
                ORDER BY next_send_at LIMIT $2 FOR UPDATE SKIP LOCKED) due, companies co
        WHERE c.id = due.id AND co.id = c.company_id
        RETURNING c.id, due.previous_holder IS NOT NULL AS "takenOver", co.is_active AS "companyActive",
                  c.gateway_config_id AS "gatewayConfigId", c.min_interval AS "minInterval",
                  coalesce(c.sending_window, co.sending_window) AS "sendingWindow"`,
      [workerId, limit, leaseSeconds, inFlight],
    );
  }

  /** A wait for the instance's turn (no reason) keeps a known wait for the instance itself. */
  async defer(
    campaignId: number,
    workerId: string,
    until: Date,
    reason: WaitingReason | null,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE campaigns SET next_send_at = greatest($3, now()),
              waiting_reason = CASE WHEN $4::varchar IS NULL AND ${WAITING_FOR_INSTANCE}
                                    THEN waiting_reason ELSE $4 END,
              locked_by = NULL, locked_until = NULL
        WHERE id = $1 AND locked_by = $2`,
      [campaignId, workerId, until, reason],
    );
  }

  /**
   * Ends the leases of workers whose liveness lock is gone (their process died or lost its
   * connection), so that their campaigns are claimed within a second instead of after the
   * lease. Kept off the claim statement: reading pg_locks costs more than a claim.
   */
  async expireLeasesOfGoneWorkers(workerId: string): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE campaigns SET locked_until = now() - interval '1 millisecond'
        WHERE status = 'ACTIVE' AND locked_until >= now() AND locked_by <> $1
          AND ${holderIsGoneSql('locked_by')}
        RETURNING id`,
      [workerId],
    );
    return rows.length;
  }

  /**
   * The common start of a send in one statement, committed on return (no transaction around
   * it): renews the lease of `workerId` on the campaign (row-locking it) and, when the
   * campaign is ACTIVE and its company active, marks its next ready contact SENDING. The
   * campaign is null when the lease is not this worker's; the contact is null when nothing
   * may be sent now.
   */
  async beginLeasedSend(
    campaignId: number,
    workerId: string,
    leaseSeconds: number,
  ): Promise<{ campaign: DispatchCampaign | null; contact: ContactToSend | null }> {
    const rows = await queryPrepared<DispatchCampaign & TakenContactColumns>(
      this.dataSource,
      'dispatch_begin_leased_send',
      `WITH campaign AS (
         UPDATE campaigns SET locked_until = now() + make_interval(secs => $3)
          WHERE id = $1 AND locked_by = $2
          RETURNING ${CAMPAIGN_COLUMNS}),
       taken AS (
         UPDATE campaign_contacts c
            SET status = ${MOVE.take.to}, sending_started_at = now(), retry_count = retry_count + 1
          WHERE id = (SELECT id FROM campaign_contacts
                       WHERE campaign_id = $1 AND status IN (${FROM.take})
                         AND (next_attempt_at IS NULL OR next_attempt_at <= now())
                         AND EXISTS (SELECT 1 FROM campaign
                                      WHERE status = 'ACTIVE' AND "lockedBy" = $2)
                       ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING id, phone_number, name, retry_count, ${CONTACT_IS_BLOCKED} AS blocked)
       SELECT campaign.*, taken.id AS "contactId", taken.phone_number AS "contactPhoneNumber",
              taken.name AS "contactName", taken.retry_count AS "contactAttempts",
              taken.blocked AS "contactBlocked"
         FROM campaign LEFT JOIN taken ON true`,
      [campaignId, workerId, leaseSeconds],
    );
    const row = rows[0];
    if (!row) {
      return { campaign: null, contact: null };
    }
    const {
      contactId,
      contactPhoneNumber,
      contactName,
      contactAttempts,
      contactBlocked,
      ...campaign
    } = row;
    const contact =
      contactId === null
        ? null
        : {
            id: contactId,
            phoneNumber: contactPhoneNumber,
            name: contactName,
            attempts: contactAttempts,
            blocked: contactBlocked,
          };
    return { campaign, contact };
  }

  /** Locks the campaign row for this transaction; pause and cancel wait for it, then win. */
  async lockCampaign(manager: EntityManager, campaignId: number): Promise<DispatchCampaign | null> {
    const rows = await queryRows<DispatchCampaign>(
      manager,
      `SELECT ${CAMPAIGN_COLUMNS}, ${COMPANY_ACTIVE} AS "companyActive"
         FROM campaigns WHERE id = $1 FOR UPDATE`,
      [campaignId],
    );
    return rows[0] ?? null;
  }

  /**
   * A contact left SENDING by a worker that died or lost its lease may or may not have been
   * sent: it becomes UNCERTAIN, to be reconciled with the gateway's store, never sent again.
   * Called by the new lease holder; returns the contacts, for the automations' sent-log.
   */
  async doubtInterruptedSends(
    manager: EntityManager,
    campaignId: number,
    firstReconcileDelayMs: number,
  ): Promise<ContactToSend[]> {
    return queryRows<ContactToSend>(
      manager,
      `UPDATE campaign_contacts
          SET status = ${MOVE.doubt.to}, reconcile_attempts = 0,
              reconcile_at = coalesce(sending_started_at, now()) + make_interval(secs => $2::float / 1000)
        WHERE campaign_id = $1 AND status IN (${FROM.doubt})
        RETURNING id, phone_number AS "phoneNumber", name, retry_count AS attempts, false AS blocked`,
      [campaignId, firstReconcileDelayMs],
    );
  }

  /** Marks the next ready contact SENDING (an attempt begins) and returns it. */
  async takeNextContact(manager: EntityManager, campaignId: number): Promise<ContactToSend | null> {
    const rows = await queryRows<ContactToSend>(
      manager,
      `UPDATE campaign_contacts c
          SET status = ${MOVE.take.to}, sending_started_at = now(), retry_count = retry_count + 1
        WHERE id = (SELECT id FROM campaign_contacts
                     WHERE campaign_id = $1 AND status IN (${FROM.take})
                       AND (next_attempt_at IS NULL OR next_attempt_at <= now())
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, phone_number AS "phoneNumber", name, retry_count AS attempts,
                  ${CONTACT_IS_BLOCKED} AS blocked`,
      [campaignId],
    );
    return rows[0] ?? null;
  }

  /**
   * When a campaign with nothing ready should look again: its earliest retry, or a second
   * after its earliest reconciliation is due; null when no contact is unfinished.
   */
  async nextLookAt(manager: EntityManager, campaignId: number): Promise<Date | null> {
    const rows = await queryRows<{ at: Date | null; unfinished: boolean }>(
      manager,
      `SELECT least(min(next_attempt_at) FILTER (WHERE status = 'PENDING'),
                    min(reconcile_at) FILTER (WHERE status = 'UNCERTAIN') + interval '1 second',
                    now() + interval '5 seconds') AS at,
              count(*) > 0 AS unfinished
         FROM campaign_contacts WHERE campaign_id = $1 AND status IN (${FROM.unfinished})`,
      [campaignId],
    );
    const row = rows[0];
    return row?.unfinished ? (row.at ?? new Date()) : null;
  }

  /**
   * A delivered message in one statement: the contact SENT (from SENDING, or from UNCERTAIN
   * when the send outlived its lease and another worker is reconciling it: it did go out),
   * the sent counter by the rows that moved, and — while `workerId` still holds the lease —
   * the next send time `pauseSeconds` from now by the database clock. The lease stays: the
   * caller still has the progress events to write, or the next message to send. `text` is
   * what the contact was sent (its drawn variants, its variables filled): `sent_text`.
   */
  async recordDelivered(
    campaignId: number,
    workerId: string,
    contact: { id: string; messageId: string | null; text: string | null },
    pauses: Pauses,
    manager?: EntityManager,
  ): Promise<CampaignCounters & { leaseHeld: boolean; contactMoved: boolean; longPause: boolean }> {
    const longPauseDue = `long_pause_every IS NOT NULL AND (SELECT count(*) FROM sent) > 0
                          AND (sent_contacts + (SELECT count(*)::int FROM sent)) % long_pause_every = 0`;
    const sql = `WITH sent AS (
         UPDATE campaign_contacts SET status = ${MOVE.deliver.to}, sent_at = now(), gateway_message_id = $3,
                reconcile_at = NULL, sent_text = $6
          WHERE id = $2 AND status IN (${FROM.deliver})
          RETURNING id),
       siblings AS (${instanceSiblingsWait('EXISTS (SELECT 1 FROM sent)')})
       UPDATE campaigns
          SET sent_contacts = sent_contacts + (SELECT count(*)::int FROM sent), last_turn_at = now(),
              next_send_at = CASE WHEN locked_by = $5 AND status = 'ACTIVE'
                                  THEN now() + make_interval(secs => CASE WHEN ${longPauseDue} THEN $7::float ELSE $4::float END)
                                  ELSE next_send_at END,
              waiting_reason = CASE WHEN locked_by = $5 AND ${longPauseDue} THEN 'LONG_PAUSE' END,
              disconnected_since = CASE WHEN locked_by = $5 THEN NULL ELSE disconnected_since END,
              internal_error_streak = CASE WHEN locked_by = $5 THEN 0 ELSE internal_error_streak END,
              send_failure_streak = CASE WHEN EXISTS (SELECT 1 FROM sent) THEN 0 ELSE send_failure_streak END,
              watched_sends = watched_sends + (SELECT count(*)::int FROM sent),
              updated_at = now()
        WHERE id = $1
        RETURNING ${COUNTER_COLUMNS}, locked_by IS NOT DISTINCT FROM $5 AS "leaseHeld",
                  waiting_reason IS NOT DISTINCT FROM 'LONG_PAUSE' AS "longPause",
                  EXISTS (SELECT 1 FROM sent) AS "contactMoved"`;
    const values = [
      campaignId,
      contact.id,
      contact.messageId,
      pauses.pauseSeconds,
      workerId,
      contact.text,
      pauses.longPauseSeconds,
    ];
    type Row = CampaignCounters & { leaseHeld: boolean; contactMoved: boolean; longPause: boolean };
    const rows = manager
      ? await queryRows<Row>(manager, sql, values)
      : await queryPrepared<Row>(this.dataSource, 'dispatch_record_delivered', sql, values);
    return rows[0];
  }

  /**
   * The contact FAILED (not to be sent) with its kind, counted in the same statement with what
   * it says about the number (`signal`, see domain/ban-signals.ts): a failed send lengthens the
   * failures in a row, a refused number counts while the first sends are watched.
   */
  async failContact(
    manager: EntityManager,
    campaignId: number,
    contactId: string,
    failure: ContactFailure,
  ): Promise<FailedContactCounters> {
    const rows = await queryRows<FailedContactCounters>(
      manager,
      `WITH failed AS (
         UPDATE campaign_contacts SET status = ${MOVE.fail.to}, failed_at = now(), failure_reason = left($3, 500),
                failure_kind = $5
          WHERE id = $2 AND status = ANY($4)
          RETURNING id),
       moved AS (SELECT count(*)::int AS n FROM failed),
       company AS (SELECT co.auto_pause FROM companies co JOIN campaigns ca ON ca.company_id = co.id
                    WHERE ca.id = $1)
       UPDATE campaigns
          SET failed_contacts = failed_contacts + moved.n,
              send_failure_streak = send_failure_streak + CASE WHEN $6::text IS NULL THEN 0 ELSE moved.n END,
              watched_refusals = watched_refusals + CASE
                WHEN $6 = 'refused' AND watched_sends
                     < coalesce((company.auto_pause ->> 'refusedSample')::int, $7) THEN moved.n ELSE 0 END,
              watched_sends = watched_sends + CASE WHEN $6::text IS NULL THEN 0 ELSE moved.n END,
              updated_at = now()
         FROM moved LEFT JOIN company ON true
        WHERE campaigns.id = $1
        RETURNING ${COUNTER_COLUMNS}, moved.n > 0 AS "contactMoved",
                  send_failure_streak AS "sendFailureStreak", watched_sends AS "watchedSends",
                  watched_refusals AS "watchedRefusals", company.auto_pause AS "autoPause"`,
      [
        campaignId,
        contactId,
        failure.reason,
        contactStatusesAllowing('fail'),
        failure.kind,
        failure.signal,
        DEFAULT_AUTO_PAUSE.refusedSample,
      ],
    );
    return rows[0];
  }

  /**
   * The outcome is unknown: the contact UNCERTAIN, its first look into the gateway's store
   * `firstReconcileDelayMs` after the send began. Counters do not move until it is resolved.
   */
  async doubtContact(
    manager: EntityManager,
    contactId: string,
    firstReconcileDelayMs: number,
  ): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE campaign_contacts
          SET status = ${MOVE.doubt.to}, reconcile_attempts = 0,
              reconcile_at = coalesce(sending_started_at, now()) + make_interval(secs => $3::float / 1000)
        WHERE id = $1 AND status = ANY($2)
        RETURNING id`,
      [contactId, contactStatusesAllowing('doubt'), firstReconcileDelayMs],
    );
    return rows.length > 0;
  }

  /** The contact back to PENDING, and what that says about the campaign (see Requeue). */
  async requeueContact(
    manager: EntityManager,
    campaignId: number,
    contactId: string,
    requeue: Requeue,
  ): Promise<void> {
    await manager.query(
      `UPDATE campaign_contacts
          SET status = ${MOVE.requeue.to}, next_attempt_at = now() + make_interval(secs => $3::float / 1000),
              retry_count = CASE WHEN $4 THEN retry_count ELSE retry_count - 1 END
        WHERE id = $1 AND campaign_id = $5 AND status = ANY($2)`,
      [
        contactId,
        contactStatusesAllowing('requeue'),
        requeue.retryInMs,
        requeue.countAttempt,
        campaignId,
      ],
    );
  }

  /**
   * After an outcome that sent nothing: schedules the campaign's next send `nextSendInMs`
   * from now, notes a disconnection (with `waitingReason`) or our own error, and gives the
   * lease back — only while `workerId` holds it; a worker that lost it changes nothing here.
   * INSTANCE_NOT_PAIRED stays while the instance stays disconnected: an answer that proves
   * less (Connection Closed, for a number the gateway must look up) does not undo the proof.
   * Our own error, raised before any gateway call, leaves the disconnection as it was.
   */
  async rescheduleAndRelease(
    manager: EntityManager,
    campaignId: number,
    workerId: string,
    next: {
      nextSendInMs: number;
      cause: Requeue['cause'] | 'sent' | 'failed';
      instancePaced?: boolean;
      waitingReason?: WaitingReason;
    },
  ): Promise<RequeueResult> {
    const rows = await queryRows<{
      disconnectedForMs: number;
      disconnectedSince: Date | null;
      internalErrorStreak: number;
      waitingReason: WaitingReason | null;
    }>(
      manager,
      `WITH siblings AS (${instanceSiblingsWait('$5 AND EXISTS (SELECT 1 FROM campaigns WHERE id = $1 AND locked_by = $2)')})
       UPDATE campaigns
          SET next_send_at = CASE WHEN status = 'ACTIVE'
                                  THEN now() + make_interval(secs => $3::float / 1000)
                                  ELSE next_send_at END,
              disconnected_since = CASE WHEN $4 = 'disconnected' THEN coalesce(disconnected_since, now())
                                        WHEN $4 = 'internal' THEN disconnected_since ELSE NULL END,
              internal_error_streak = CASE WHEN $4 = 'internal' THEN internal_error_streak + 1 ELSE 0 END,
              last_turn_at = CASE WHEN $5 THEN now() ELSE last_turn_at END,
              waiting_reason = CASE
                WHEN $4 = 'disconnected' AND ${NEVER_PAIRED} THEN waiting_reason
                WHEN $4 = 'disconnected' THEN $6
                WHEN $4 = 'internal' AND ${WAITING_FOR_INSTANCE} THEN waiting_reason END,
              locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE id = $1 AND locked_by = $2
        RETURNING (extract(epoch FROM now() - coalesce(disconnected_since, now())) * 1000)::float AS "disconnectedForMs",
                  disconnected_since AS "disconnectedSince", internal_error_streak AS "internalErrorStreak",
                  waiting_reason AS "waitingReason"`,
      [
        campaignId,
        workerId,
        next.nextSendInMs,
        next.cause,
        next.instancePaced ?? false,
        next.waitingReason ?? 'INSTANCE_DISCONNECTED',
      ],
    );
    const row = rows[0];
    return row
      ? { leaseHeld: true, ...row }
      : {
          leaseHeld: false,
          disconnectedForMs: 0,
          disconnectedSince: null,
          internalErrorStreak: 0,
          waitingReason: null,
        };
  }

  async setProgressStep(manager: EntityManager, campaignId: number, step: number): Promise<void> {
    await manager.query(
      `UPDATE campaigns SET progress_step = $2 WHERE id = $1 AND progress_step < $2`,
      [campaignId, step],
    );
  }

  /** Ends `workerId`'s lease, unless it lost it to another worker (whose it then is). */
  async releaseLease(campaignId: number, workerId: string, manager?: EntityManager): Promise<void> {
    await (manager ?? this.dataSource).query(
      `UPDATE campaigns SET locked_until = NULL, locked_by = NULL WHERE id = $1 AND locked_by = $2`,
      [campaignId, workerId],
    );
  }

  /** Gives `workerId`'s lease back, moving the next send to `nextSendAt` when given. */
  async release(
    manager: EntityManager | DataSource,
    campaignId: number,
    workerId: string,
    nextSendAt: Date | null,
  ): Promise<void> {
    await manager.query(
      `UPDATE campaigns SET locked_until = NULL, locked_by = NULL, next_send_at = coalesce($2, next_send_at)
        WHERE id = $1 AND locked_by = $3`,
      [campaignId, nextSendAt, workerId],
    );
  }

  async complete(manager: EntityManager, campaignId: number): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      manager,
      `UPDATE campaigns SET status = ${CAMPAIGN_MOVE.complete.to}, completed_at = now(), next_send_at = NULL,
              locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
          AND NOT EXISTS (SELECT 1 FROM campaign_contacts
                           WHERE campaign_id = $1 AND status IN (${FROM.unfinished}))
        RETURNING ${COUNTER_COLUMNS}`,
      [campaignId, statusesAllowing('complete')],
    );
    return rows[0] ?? null;
  }

  async fail(
    manager: EntityManager,
    campaignId: number,
    reason: string,
  ): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      manager,
      `UPDATE campaigns SET status = ${CAMPAIGN_MOVE.fail.to}, failure_reason = $3, completed_at = now(), next_send_at = NULL,
              locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
        RETURNING ${COUNTER_COLUMNS}`,
      [campaignId, statusesAllowing('fail'), reason],
    );
    return rows[0] ?? null;
  }

  /** The engine's own pause (our repeated errors, a deactivated company), with its reason. */
  async pause(
    manager: EntityManager,
    campaignId: number,
    reason: string,
  ): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      manager,
      `UPDATE campaigns SET status = ${CAMPAIGN_MOVE.pause.to}, paused_at = now(), pause_reason = $3, internal_error_streak = 0,
              locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
        RETURNING ${COUNTER_COLUMNS}`,
      [campaignId, statusesAllowing('pause'), reason],
    );
    return rows[0] ?? null;
  }

  /**
   * Takes up to `limit` SENT contacts not yet copied to the SYSTEM database and marks them
   * copied; the caller copies them in the same transaction, so a crash undoes both.
   */
  async claimUnrecordedSent(manager: EntityManager, limit: number): Promise<SentContact[]> {
    return queryRows<SentContact>(
      manager,
      `UPDATE campaign_contacts c SET system_recorded = true
         FROM (SELECT id FROM campaign_contacts WHERE status = 'SENT' AND NOT system_recorded
                ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED) batch
        WHERE c.id = batch.id
        RETURNING c.company_id AS "companyId", c.campaign_id AS "campaignId",
                  c.phone_number AS phone, coalesce(c.name, '') AS name, c.sent_at AS "sentAt"`,
      [limit],
    );
  }

  /** For the health endpoint: how many campaigns are due and how late the most overdue one is. */
  async backlog(): Promise<{ due: number; lagSeconds: number }> {
    const rows = await queryRows<{ due: number; lag: number | null }>(
      this.dataSource,
      `SELECT count(*)::int AS due, extract(epoch FROM now() - min(next_send_at))::float AS lag
         FROM campaigns WHERE status = 'ACTIVE' AND next_send_at <= now()`,
    );
    return { due: rows[0].due, lagSeconds: Math.max(0, Math.round((rows[0].lag ?? 0) * 10) / 10) };
  }

  /** For the metrics: due ACTIVE campaigns, counted up to `cap` over the due index. */
  async countDue(cap: number): Promise<number> {
    const rows = await queryRows<{ due: number }>(
      this.dataSource,
      `SELECT count(*)::int AS due FROM (SELECT 1 FROM campaigns
                                           WHERE status = 'ACTIVE' AND next_send_at <= now() LIMIT $1) d`,
      [cap],
    );
    return rows[0].due;
  }

  /** Milliseconds until the next ACTIVE campaign or scheduled start is due (null: none). */
  async msUntilNextDue(): Promise<number | null> {
    const rows = await queryRows<{ ms: number | null }>(
      this.dataSource,
      `SELECT extract(epoch FROM (least(
                (SELECT min(next_send_at) FROM campaigns WHERE status = 'ACTIVE'
                   AND (locked_until IS NULL OR locked_until < now())),
                (SELECT min(scheduled_for) FROM campaigns WHERE status = 'SCHEDULED')) - now())) * 1000 AS ms`,
    );
    return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
  }
}
