import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { AppConfig } from '../../../config/app-config.service';
import { queryPrepared, queryRows } from '../../../database/query-rows';
import { dayLimitSql, sentTodaySql } from '../../gateway/infrastructure/instance-pacing.sql';
import { statusesAllowing } from '../domain/campaign-status';
import type { ClaimedCampaign, ContactToSend, DispatchCampaign } from '../domain/dispatch-records';
import {
  CAMPAIGN_COLUMNS,
  CAMPAIGN_MOVE,
  COMPANY_ACTIVE,
  CONTACT_IS_BLOCKED,
  MOVE,
  UNFINISHED,
} from './dispatch.sql';

/**
 * Overdue campaigns read per campaign claimed: enough for one campaign per instance when
 * several campaigns of an instance are due together (each has its own pause after the
 * instance's last message, so they seldom are).
 */
const OVERDUE_PER_CLAIM = 4;

/**
 * The claimable campaigns the claim chooses among: due ACTIVE campaigns nobody holds, of
 * instances nobody holds and that have been quiet for the campaign's shortest pause, the
 * most overdue first, read in the order of the due index and only as many as the claim could
 * use ($2 times OVERDUE_PER_CLAIM): its cost does not grow with the backlog. Campaigns this
 * worker still has in flight ($4) are left out.
 */
const OVERDUE = `
  SELECT d.id, d.gateway_config_id, d.last_turn_at, d.next_send_at FROM campaigns d
   WHERE d.status = 'ACTIVE' AND d.next_send_at <= now()
     AND (d.locked_until IS NULL OR d.locked_until < now())
     AND NOT (d.id = ANY($4::int[]))
     AND NOT EXISTS (SELECT 1 FROM instance_pacing p
                      WHERE p.gateway_config_id = d.gateway_config_id
                        AND (p.held_until >= now()
                             OR p.last_message_at + make_interval(secs => d.min_interval) > now()))
   ORDER BY d.next_send_at LIMIT $2 * ${OVERDUE_PER_CLAIM}`;

/** Of them, one per instance: the one whose turn was longest ago (round robin). */
const CANDIDATES = `
  SELECT DISTINCT ON (gateway_config_id) id, next_send_at FROM overdue
   ORDER BY gateway_config_id, last_turn_at NULLS FIRST, id`;

/**
 * $2 of the candidates, the most overdue first, locked (a row another worker is claiming is
 * skipped) and checked again as of their latest rows; each row is reached by its key.
 */
const DUE_CAMPAIGNS = `
  SELECT c.id, c.locked_by AS previous_holder, c.gateway_config_id, c.min_interval
    FROM candidates JOIN campaigns c ON c.id = candidates.id
   WHERE c.status = 'ACTIVE' AND c.next_send_at <= now()
     AND (c.locked_until IS NULL OR c.locked_until < now())
   ORDER BY candidates.next_send_at LIMIT $2 FOR UPDATE OF c SKIP LOCKED`;

/**
 * The instances of the due campaigns that may send now, as of their latest rows (locked, a
 * row another sender is writing skipped): nobody holds them, they have been quiet for the
 * campaign's shortest pause, and their figure of the day ($5: APP_TIMEZONE) is not reached.
 */
const FREE_INSTANCES = `
  SELECT p.gateway_config_id, ${dayLimitSql('$5')} - ${sentTodaySql('$5')} AS quota
    FROM instance_pacing p
    JOIN gateway_configs g ON g.id = p.gateway_config_id
    JOIN due ON due.gateway_config_id = p.gateway_config_id
   WHERE (p.held_until IS NULL OR p.held_until < now())
     AND p.last_message_at + make_interval(secs => due.min_interval) <= now()
     AND coalesce(${sentTodaySql('$5')} < ${dayLimitSql('$5')}, true)
     FOR UPDATE OF p SKIP LOCKED`;

/**
 * Taking campaigns and their contacts: the claim (a lease on the campaign and a hold on its
 * instance), the start of a send (its contact SENDING, committed before the gateway call, so
 * it is never sent twice), scheduled starts, and what a new lease holder finds of an
 * interrupted send. Campaign rows are claimed with SKIP LOCKED and a lease (locked_by,
 * locked_until), taken over when the lease runs out or its holder's liveness lock is gone. All
 * times come from the database clock.
 */
@Injectable()
export class DispatchClaimRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  /** Scheduled campaigns whose time came become ACTIVE; returns them for their started events. */
  async startDueScheduled(tx: Transaction, limit: number): Promise<DispatchCampaign[]> {
    return queryRows(
      tx,
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
   * out (DispatchLeaseRepository.expireLeasesOfGoneWorkers ends a dead holder's lease at
   * once): at most one per gateway instance, of instances nobody holds and that have been
   * quiet for the campaign's shortest pause, the one whose turn was longest ago. In the same
   * statement it holds, for this worker, each of their instances that may send now (see
   * ClaimedCampaign.instanceHeld). Campaigns this worker still has in flight (a send that
   * outlived its lease) are never claimed again by it. A prepared statement: its plan is made
   * once per connection.
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
    return queryPrepared<ClaimedCampaign>(
      this.dataSource,
      'dispatch_claim_due',
      `WITH overdue AS (${OVERDUE}),
       candidates AS (${CANDIDATES}),
       due AS (${DUE_CAMPAIGNS}),
       leased AS (
         UPDATE campaigns c SET locked_by = $1, locked_until = now() + make_interval(secs => $3)
           FROM due, companies co
          WHERE c.id = due.id AND co.id = c.company_id
            -- Reached by key: the planner would otherwise scan the table to join a few rows.
            AND c.id = ANY (ARRAY(SELECT id FROM due))
          RETURNING c.id, due.previous_holder IS NOT NULL AS "takenOver", co.is_active AS "companyActive",
                    c.gateway_config_id AS "gatewayConfigId", c.min_interval AS "minInterval",
                    coalesce(c.sending_window, co.sending_window) AS "sendingWindow"),
       free AS (${FREE_INSTANCES}),
       held AS (
         UPDATE instance_pacing p SET held_by = $1, held_until = now() + make_interval(secs => $3)
           FROM free WHERE p.gateway_config_id = free.gateway_config_id
          RETURNING p.gateway_config_id, free.quota)
       SELECT leased.*, held.gateway_config_id IS NOT NULL AS "instanceHeld", held.quota
         FROM leased LEFT JOIN held ON held.gateway_config_id = leased."gatewayConfigId"`,
      [workerId, limit, leaseSeconds, inFlight, this.config.appTimezone],
    );
  }

  /**
   * The common start of a send in one statement, committed on return (no transaction around
   * it): renews the lease of `workerId` on the campaign (row-locking it) and, when the
   * campaign is ACTIVE, marks its next ready contact SENDING. The campaign is null when the
   * lease is not this worker's; the contact is null when nothing may be sent now.
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
                       WHERE campaign_id = $1 AND status IN (${MOVE.take.from})
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
    return rows[0] ? splitTaken(rows[0]) : { campaign: null, contact: null };
  }

  /** Locks the campaign row for this transaction; pause and cancel wait for it, then win. */
  async lockCampaign(tx: Transaction, campaignId: number): Promise<DispatchCampaign | null> {
    const rows = await queryRows<DispatchCampaign>(
      tx,
      `SELECT ${CAMPAIGN_COLUMNS}, ${COMPANY_ACTIVE} FROM campaigns WHERE id = $1 FOR UPDATE`,
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
    tx: Transaction,
    campaignId: number,
    firstReconcileDelayMs: number,
  ): Promise<ContactToSend[]> {
    return queryRows<ContactToSend>(
      tx,
      `UPDATE campaign_contacts
          SET status = ${MOVE.doubt.to}, reconcile_attempts = 0,
              reconcile_at = coalesce(sending_started_at, now()) + make_interval(secs => $2::float / 1000)
        WHERE campaign_id = $1 AND status IN (${MOVE.doubt.from})
        RETURNING id, phone_number AS "phoneNumber", name, retry_count AS attempts, false AS blocked`,
      [campaignId, firstReconcileDelayMs],
    );
  }

  /** Marks the next ready contact SENDING (an attempt begins) and returns it. */
  async takeNextContact(tx: Transaction, campaignId: number): Promise<ContactToSend | null> {
    const rows = await queryRows<ContactToSend>(
      tx,
      `UPDATE campaign_contacts c
          SET status = ${MOVE.take.to}, sending_started_at = now(), retry_count = retry_count + 1
        WHERE id = (SELECT id FROM campaign_contacts
                     WHERE campaign_id = $1 AND status IN (${MOVE.take.from})
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
  async nextLookAt(tx: Transaction, campaignId: number): Promise<Date | null> {
    const rows = await queryRows<{ at: Date | null; unfinished: boolean }>(
      tx,
      `SELECT least(min(next_attempt_at) FILTER (WHERE status = 'PENDING'),
                    min(reconcile_at) FILTER (WHERE status = 'UNCERTAIN') + interval '1 second',
                    now() + interval '5 seconds') AS at,
              count(*) > 0 AS unfinished
         FROM campaign_contacts WHERE campaign_id = $1 AND status IN (${UNFINISHED})`,
      [campaignId],
    );
    const row = rows[0];
    return row?.unfinished ? (row.at ?? new Date()) : null;
  }
}

interface TakenContactColumns {
  contactId: string | null;
  contactPhoneNumber: string;
  contactName: string;
  contactAttempts: number;
  contactBlocked: boolean;
}

/** The begin statement's one row: the campaign, and the contact it took (if any). */
function splitTaken(row: DispatchCampaign & TakenContactColumns): {
  campaign: DispatchCampaign;
  contact: ContactToSend | null;
} {
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
