import { Injectable } from '@nestjs/common';
import type { SentContact } from '../../user-databases/application/system-contacts.recorder';
import { queryRows } from '../../../database/query-rows';
import { DataSource, EntityManager } from 'typeorm';
import { statusesAllowing } from '../domain/campaign-status';
import type { CampaignMediaType, PollDefinition } from '../domain/campaign.entity';
import type { CampaignType } from '../domain/campaign-status';

export const INTERRUPTED_SEND_REASON = 'envio interrompido';

/** The campaign as the engine needs it for one send. */
export interface DispatchCampaign {
  id: number;
  companyId: number;
  status: string;
  type: CampaignType;
  messageContent: string | null;
  mediaUrl: string | null;
  mediaType: CampaignMediaType | null;
  fileName: string | null;
  caption: string | null;
  pollData: PollDefinition | null;
  gatewayConfigId: number;
  databaseConfigId: number | null;
  minInterval: number;
  maxInterval: number;
  notificationPhone: string | null;
  name: string;
  totalContacts: number;
  sentContacts: number;
  failedContacts: number;
  progressStep: number;
  startedAt: Date | null;
  disconnectedSince: Date | null;
  lockedBy: string | null;
  automationRunId: string | null;
}

export interface ContactToSend {
  id: string;
  phoneNumber: string;
  name: string;
  attempts: number;
}

interface TakenContactColumns {
  contactId: string | null;
  contactPhoneNumber: string;
  contactName: string;
  contactAttempts: number;
}

export interface CampaignCounters {
  totalContacts: number;
  sentContacts: number;
  failedContacts: number;
  progressStep: number;
  status: string;
}

const CAMPAIGN_COLUMNS = `
  id, company_id AS "companyId", status, type, message_content AS "messageContent", media_url AS "mediaUrl",
  media_type AS "mediaType", file_name AS "fileName", caption, poll_data AS "pollData",
  gateway_config_id AS "gatewayConfigId", database_config_id AS "databaseConfigId",
  min_interval AS "minInterval", max_interval AS "maxInterval", notification_phone AS "notificationPhone",
  name, total_contacts AS "totalContacts", sent_contacts AS "sentContacts", failed_contacts AS "failedContacts",
  progress_step AS "progressStep", started_at AS "startedAt", disconnected_since AS "disconnectedSince",
  locked_by AS "lockedBy", automation_run_id AS "automationRunId"`;

/**
 * A send that ends after its campaign was paused, cancelled or completed schedules nothing:
 * resume sets its own time, and an ended campaign keeps no next send.
 */
const NEXT_SEND_AT_IF_ACTIVE = `CASE WHEN status = 'ACTIVE' THEN $4 ELSE next_send_at END`;

/**
 * The engine's SQL. Campaign rows are claimed with SKIP LOCKED and a lease (locked_until), so
 * two workers never hold one campaign; a contact is marked SENDING and committed before the
 * gateway call, so it is never sent twice.
 */
@Injectable()
export class DispatchRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Scheduled campaigns whose time came become ACTIVE; returns them for their started events. */
  async startDueScheduled(manager: EntityManager, limit: number): Promise<DispatchCampaign[]> {
    return queryRows(
      manager,
      `UPDATE campaigns SET status = 'ACTIVE', started_at = now(), next_send_at = now(), updated_at = now()
        WHERE id IN (SELECT id FROM campaigns
                      WHERE status = ANY($1) AND scheduled_for <= now()
                      ORDER BY scheduled_for LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING ${CAMPAIGN_COLUMNS}`,
      [statusesAllowing('start'), limit],
    );
  }

  /**
   * Leases up to `limit` due ACTIVE campaigns that nobody holds, or whose holder's lease ran
   * out. `takenOver` tells the second case: only then can a contact have been left SENDING.
   */
  async claimDue(
    workerId: string,
    limit: number,
    leaseSeconds: number,
  ): Promise<Array<{ id: number; takenOver: boolean }>> {
    if (limit <= 0) {
      return [];
    }
    return queryRows<{ id: number; takenOver: boolean }>(
      this.dataSource,
      `UPDATE campaigns c SET locked_by = $1, locked_until = now() + make_interval(secs => $3)
         FROM (SELECT id, locked_until AS previous_lease FROM campaigns
                WHERE status = 'ACTIVE' AND next_send_at <= now()
                  AND (locked_until IS NULL OR locked_until < now())
                ORDER BY next_send_at LIMIT $2 FOR UPDATE SKIP LOCKED) due
        WHERE c.id = due.id
        RETURNING c.id, due.previous_lease IS NOT NULL AS "takenOver"`,
      [workerId, limit, leaseSeconds],
    );
  }

  /**
   * The common start of a send in one statement, committed on return (no transaction around
   * it): renews the lease of `workerId` on the campaign (row-locking it) and, when the
   * campaign is ACTIVE, marks its next ready contact SENDING. The campaign is null when the
   * lease is not this worker's; the contact is null when it is not ACTIVE or has no contact
   * ready.
   */
  async beginLeasedSend(
    campaignId: number,
    workerId: string,
    leaseSeconds: number,
  ): Promise<{ campaign: DispatchCampaign | null; contact: ContactToSend | null }> {
    const rows = await queryRows<DispatchCampaign & TakenContactColumns>(
      this.dataSource,
      `WITH campaign AS (
         UPDATE campaigns SET locked_until = now() + make_interval(secs => $3)
          WHERE id = $1 AND locked_by = $2
          RETURNING ${CAMPAIGN_COLUMNS}),
       taken AS (
         UPDATE campaign_contacts
            SET status = 'SENDING', sending_started_at = now(), retry_count = retry_count + 1
          WHERE id = (SELECT id FROM campaign_contacts
                       WHERE campaign_id = $1 AND status = 'PENDING'
                         AND (next_attempt_at IS NULL OR next_attempt_at <= now())
                         AND EXISTS (SELECT 1 FROM campaign
                                      WHERE status = 'ACTIVE' AND "lockedBy" = $2)
                       ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING id, phone_number, name, retry_count)
       SELECT campaign.*, taken.id AS "contactId", taken.phone_number AS "contactPhoneNumber",
              taken.name AS "contactName", taken.retry_count AS "contactAttempts"
         FROM campaign LEFT JOIN taken ON true`,
      [campaignId, workerId, leaseSeconds],
    );
    const row = rows[0];
    if (!row) {
      return { campaign: null, contact: null };
    }
    const { contactId, contactPhoneNumber, contactName, contactAttempts, ...campaign } = row;
    const contact =
      contactId === null
        ? null
        : {
            id: contactId,
            phoneNumber: contactPhoneNumber,
            name: contactName,
            attempts: contactAttempts,
          };
    return { campaign, contact };
  }

  /** Locks the campaign row for this transaction; pause and cancel wait for it, then win. */
  async lockCampaign(manager: EntityManager, campaignId: number): Promise<DispatchCampaign | null> {
    const rows = await queryRows<DispatchCampaign>(
      manager,
      `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns WHERE id = $1 FOR UPDATE`,
      [campaignId],
    );
    return rows[0] ?? null;
  }

  /**
   * A contact left SENDING by a worker whose lease expired may or may not have been sent:
   * it is failed, never retried (SPEC-EXTENSIONS.md 4). Called by the new lease holder.
   */
  async failInterruptedSends(manager: EntityManager, campaignId: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE campaign_contacts SET status = 'FAILED', failed_at = now(), failure_reason = $2
        WHERE campaign_id = $1 AND status = 'SENDING' RETURNING id`,
      [campaignId, INTERRUPTED_SEND_REASON],
    );
    if (rows.length > 0) {
      await manager.query(
        `UPDATE campaigns SET failed_contacts = failed_contacts + $2, updated_at = now() WHERE id = $1`,
        [campaignId, rows.length],
      );
    }
    return rows.length;
  }

  /** Marks the next ready contact SENDING (an attempt begins) and returns it. */
  async takeNextContact(manager: EntityManager, campaignId: number): Promise<ContactToSend | null> {
    const rows = await queryRows<ContactToSend>(
      manager,
      `UPDATE campaign_contacts SET status = 'SENDING', sending_started_at = now(), retry_count = retry_count + 1
        WHERE id = (SELECT id FROM campaign_contacts
                     WHERE campaign_id = $1 AND status = 'PENDING'
                       AND (next_attempt_at IS NULL OR next_attempt_at <= now())
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, phone_number AS "phoneNumber", name, retry_count AS attempts`,
      [campaignId],
    );
    return rows[0] ?? null;
  }

  /** When the earliest contact waiting for a retry becomes ready; null when none waits. */
  async nextRetryAt(manager: EntityManager, campaignId: number): Promise<Date | null> {
    const rows = await queryRows<{ at: Date | null }>(
      manager,
      `SELECT min(next_attempt_at) AS at FROM campaign_contacts WHERE campaign_id = $1 AND status = 'PENDING'`,
      [campaignId],
    );
    return rows[0]?.at ?? null;
  }

  async hasUnfinishedContacts(manager: EntityManager, campaignId: number): Promise<boolean> {
    const rows = await queryRows<unknown>(
      manager,
      `SELECT 1 FROM campaign_contacts WHERE campaign_id = $1 AND status IN ('PENDING', 'SENDING') LIMIT 1`,
      [campaignId],
    );
    return rows.length > 0;
  }

  /**
   * A delivered message in one statement: the contact SENT — from SENDING, or from FAILED when
   * the send outlived its lease and was written off as interrupted (it did go out) — and the
   * campaign's counters and its next send time; in `manager`'s transaction, or committed on
   * its own. The lease stays: the caller still has the progress events to write, or the next
   * message to send, before releasing it.
   */
  async recordSent(
    campaignId: number,
    contact: { id: string; messageId: string | null },
    nextSendAt: Date,
    manager?: EntityManager,
  ): Promise<CampaignCounters> {
    const rows = await queryRows<CampaignCounters>(
      manager ?? this.dataSource,
      `WITH old AS (SELECT status FROM campaign_contacts WHERE id = $2 FOR UPDATE),
       sent AS (
         UPDATE campaign_contacts SET status = 'SENT', sent_at = now(), gateway_message_id = $3,
                failed_at = NULL, failure_reason = NULL
          WHERE id = $2
          RETURNING (SELECT status FROM old) = 'FAILED' AS was_failed)
       UPDATE campaigns
          SET sent_contacts = sent_contacts + 1,
              failed_contacts = failed_contacts - (SELECT count(*)::int FROM sent WHERE was_failed),
              next_send_at = ${NEXT_SEND_AT_IF_ACTIVE}, updated_at = now(), disconnected_since = NULL
        WHERE id = $1
        RETURNING total_contacts AS "totalContacts", sent_contacts AS "sentContacts",
                  failed_contacts AS "failedContacts", progress_step AS "progressStep", status`,
      [campaignId, contact.id, contact.messageId, nextSendAt],
    );
    return rows[0];
  }

  async markFailed(manager: EntityManager, contactId: string, reason: string): Promise<void> {
    await manager.query(
      `UPDATE campaign_contacts SET status = 'FAILED', failed_at = now(), failure_reason = left($2, 500)
        WHERE id = $1 AND status = 'SENDING'`,
      [contactId, reason],
    );
  }

  /** Back to PENDING; `countAttempt` false when the attempt never reached WhatsApp (instance down). */
  async markForRetry(
    manager: EntityManager,
    contactId: string,
    retryAt: Date,
    countAttempt: boolean,
  ): Promise<void> {
    await manager.query(
      `UPDATE campaign_contacts
          SET status = 'PENDING', next_attempt_at = $2,
              retry_count = CASE WHEN $3 THEN retry_count ELSE retry_count - 1 END
        WHERE id = $1 AND status = 'SENDING'`,
      [contactId, retryAt, countAttempt],
    );
  }

  /** Counts the outcome, schedules the next send and releases the lease, in one statement. */
  async recordOutcome(
    manager: EntityManager,
    campaignId: number,
    outcome: { sent: number; failed: number; nextSendAt: Date | null; connected: boolean },
  ): Promise<CampaignCounters> {
    const rows = await queryRows<CampaignCounters>(
      manager,
      `UPDATE campaigns
          SET sent_contacts = sent_contacts + $2, failed_contacts = failed_contacts + $3,
              next_send_at = ${NEXT_SEND_AT_IF_ACTIVE}, locked_until = NULL, locked_by = NULL, updated_at = now(),
              disconnected_since = CASE WHEN $5 THEN NULL ELSE coalesce(disconnected_since, now()) END
        WHERE id = $1
        RETURNING total_contacts AS "totalContacts", sent_contacts AS "sentContacts",
                  failed_contacts AS "failedContacts", progress_step AS "progressStep", status`,
      [campaignId, outcome.sent, outcome.failed, outcome.nextSendAt, outcome.connected],
    );
    return rows[0];
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

  async release(
    manager: EntityManager | DataSource,
    campaignId: number,
    nextSendAt: Date | null,
  ): Promise<void> {
    await manager.query(
      `UPDATE campaigns SET locked_until = NULL, locked_by = NULL, next_send_at = coalesce($2, next_send_at)
        WHERE id = $1`,
      [campaignId, nextSendAt],
    );
  }

  async complete(manager: EntityManager, campaignId: number): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      manager,
      `UPDATE campaigns SET status = 'COMPLETED', completed_at = now(), next_send_at = NULL,
              locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
        RETURNING total_contacts AS "totalContacts", sent_contacts AS "sentContacts",
                  failed_contacts AS "failedContacts", progress_step AS "progressStep", status`,
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
      `UPDATE campaigns SET status = 'FAILED', failure_reason = $3, completed_at = now(), next_send_at = NULL,
              locked_until = NULL, locked_by = NULL, updated_at = now()
        WHERE id = $1 AND status = ANY($2)
        RETURNING total_contacts AS "totalContacts", sent_contacts AS "sentContacts",
                  failed_contacts AS "failedContacts", progress_step AS "progressStep", status`,
      [campaignId, statusesAllowing('fail'), reason],
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
