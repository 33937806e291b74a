import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { AppConfig } from '../../../config/app-config.service';
import { queryPrepared, queryRows } from '../../../database/query-rows';
import {
  campaignPauseEndsSql,
  dayLimitSql,
  INSTANCE_DUE_AT,
  INSTANCE_HAS_CAMPAIGNS,
  sentTodaySql,
  TIER_ROOM_SQL,
} from '../../gateway/infrastructure/instance-pacing.sql';
import { statusesAllowing } from '../domain/campaign-status';
import type { WaitingReason } from '../domain/campaign.entity';
import type { ClaimedCampaign, ContactToSend, DispatchCampaign } from '../domain/dispatch-records';
import {
  CAMPAIGN_COLUMNS,
  CAMPAIGN_MOVE,
  COMPANY_ACTIVE,
  CONTACT_IS_BLOCKED,
  MOVE,
  RENEW_LEASE,
  TAKE_SET,
  TAKEN_CONTACT_COLUMNS,
  THROUGHPUT_PER_SECOND,
  UNFINISHED,
} from './dispatch.sql';

/** Due instances read per campaign claimed: some have nothing to claim yet (leased, or pausing). */
const DUE_INSTANCES_PER_CLAIM = 4;

/**
 * The instances the claim chooses among: nobody holds them and one of their ACTIVE campaigns
 * is due and past its pause (ready_at), the most overdue first, read in the order of the due index
 * (instance_pacing_due_idx) and only as many as the claim could use ($2 times
 * DUE_INSTANCES_PER_CLAIM): its cost does not grow with the backlog or with idle instances.
 */
const DUE_INSTANCES = `
  SELECT p.gateway_config_id, p.last_message_at, p.pause_draw, ${INSTANCE_DUE_AT} AS due_at
    FROM instance_pacing p
   WHERE ${INSTANCE_HAS_CAMPAIGNS} AND ${INSTANCE_DUE_AT} <= now()
   ORDER BY ${INSTANCE_DUE_AT} LIMIT $2 * ${DUE_INSTANCES_PER_CLAIM}`;

/**
 * Of each due instance, the claimable campaign whose turn was longest ago (round robin): due,
 * past its own pause after the instance's last message, nobody holds it, and not one this
 * worker still has in flight ($4). A pool's own row never sends (its senders do).
 */
const CANDIDATES = `
  SELECT DISTINCT ON (i.gateway_config_id) d.id, i.due_at FROM due_instances i
    JOIN campaigns d ON d.gateway_config_id = i.gateway_config_id
   WHERE d.status = 'ACTIVE' AND d.next_send_at <= now()
     AND (d.locked_until IS NULL OR d.locked_until < now())
     AND NOT (d.id = ANY($4::int[])) AND d.pool_id IS DISTINCT FROM d.id
     AND ${campaignPauseEndsSql('d', 'i')} <= now()
   ORDER BY i.gateway_config_id, d.last_turn_at NULLS FIRST, d.id`;

/**
 * $2 of the candidates, the most overdue first, locked with their instance's row (a campaign
 * or an instance another worker is claiming is skipped: two workers never lease two campaigns
 * of one instance together, where the second could only wait) and checked again as of their
 * latest rows; each row is reached by its key.
 */
const DUE_CAMPAIGNS = `
  SELECT c.id, c.locked_by AS previous_holder, c.gateway_config_id, c.min_interval, c.max_interval
    FROM candidates JOIN campaigns c ON c.id = candidates.id
    JOIN instance_pacing i ON i.gateway_config_id = c.gateway_config_id
   WHERE c.status = 'ACTIVE' AND c.next_send_at <= now()
     AND (c.locked_until IS NULL OR c.locked_until < now())
   ORDER BY candidates.due_at LIMIT $2 FOR UPDATE OF c, i SKIP LOCKED`;

/**
 * The instances of the due campaigns that may send now, as of their latest rows (locked, a
 * row another sender is writing skipped): nobody holds them, the campaign's pause after their
 * last message is over, their figure of the day ($5: APP_TIMEZONE) is not reached, and a Cloud
 * API number has room in its tier. The quota is the lower of the two (least() skips a null).
 */
const FREE_INSTANCES = `
  SELECT p.gateway_config_id, least(${dayLimitSql('$5')} - ${sentTodaySql('$5')}, ${TIER_ROOM_SQL}) AS quota
    FROM instance_pacing p
    JOIN gateway_configs g ON g.id = p.gateway_config_id
    JOIN due ON due.gateway_config_id = p.gateway_config_id
   WHERE (p.held_until IS NULL OR p.held_until < now())
     AND ${campaignPauseEndsSql('due', 'p')} <= now()
     AND coalesce(${sentTodaySql('$5')} < ${dayLimitSql('$5')}, true)
     AND coalesce(${TIER_ROOM_SQL} > 0, true)
     FOR UPDATE OF p SKIP LOCKED`;

/**
 * How campaign `campaignId` picks its contacts, in one lookup of its row and its gateway
 * configuration's: null in id order; WARM_FIRST warm ones first (warmFirst); COLD only warm
 * ones and ALL none (the instance's reach-out lock, GatewayConfigsService.refusalsReceived).
 */
function pickModeSql(campaignId: string): string {
  return `(SELECT CASE WHEN g.reachout_lock_scope IS NOT NULL THEN g.reachout_lock_scope
                      WHEN k.warm_first THEN 'WARM_FIRST' END AS mode
             FROM campaigns k JOIN gateway_configs g ON g.id = k.gateway_config_id
            WHERE k.id = ${campaignId})`;
}

/**
 * The next ready contact of campaign `campaignId` (an SQL expression), locked (a row another
 * statement is taking is skipped): PENDING, its retry due, in id order; `onlyIf` guards it.
 * Warm ones are looked for first (campaign_contacts_pending_warm_idx) only when the pick mode
 * asks for them, so the common pick costs one more key lookup than a plain one.
 */
function nextReadyContactSql(campaignId: string, onlyIf = 'true'): string {
  const ready = `campaign_id = ${campaignId} AND status IN (${MOVE.take.from})
                AND (next_attempt_at IS NULL OR next_attempt_at <= now()) AND ${onlyIf}`;
  return `(SELECT coalesce(warm.id, next.id) FROM ${pickModeSql(campaignId)} AS pick
             LEFT JOIN LATERAL (
               SELECT id FROM campaign_contacts
                WHERE ${ready} AND warm AND pick.mode IN ('COLD', 'WARM_FIRST')
                ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) AS warm ON true
             LEFT JOIN LATERAL (
               SELECT id FROM campaign_contacts
                WHERE ${ready} AND warm.id IS NULL AND (pick.mode IS NULL OR pick.mode = 'WARM_FIRST')
                ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) AS next ON true)`;
}

/**
 * The first contact of each campaign the claim leased that may send at once — its instance
 * held, its company active, no window to check, no interrupted send to settle first — marked
 * SENDING in the claim's own statement, so that a paced message needs no separate begin.
 */
const FIRST_CONTACTS = `
  SELECT l.id AS campaign_id, ${nextReadyContactSql('l.id')} AS contact_id
    FROM leased l JOIN held h ON h.gateway_config_id = l."gatewayConfigId"
   WHERE l."companyActive" AND NOT l."takenOver" AND l."sendingWindow" IS NULL`;

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
   * once): at most one per gateway instance, of instances nobody holds, past its own pause
   * after the instance's last message, the one whose turn was longest ago, the most overdue
   * instances first. In the same
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
    const rows = await queryPrepared<ClaimRow>(
      this.dataSource,
      'dispatch_claim_due',
      `WITH due_instances AS (${DUE_INSTANCES}),
       candidates AS (${CANDIDATES}),
       due AS (${DUE_CAMPAIGNS}),
       leased AS (
         UPDATE campaigns SET locked_by = $1, locked_until = now() + make_interval(secs => $3)
           -- Only the claim's own columns: the campaign's are returned unqualified.
           FROM (SELECT id AS due_id, previous_holder FROM due) d
          WHERE campaigns.id = d.due_id
            -- Reached by key: the planner would otherwise scan the table to join a few rows.
            AND campaigns.id = ANY (ARRAY(SELECT id FROM due))
          RETURNING ${CAMPAIGN_COLUMNS}, ${COMPANY_ACTIVE}, d.previous_holder IS NOT NULL AS "takenOver",
                    warm_first AS "warmFirst", ${THROUGHPUT_PER_SECOND} AS "throughputPerSecond",
                    coalesce(sending_window, (SELECT sending_window FROM companies
                                               WHERE companies.id = campaigns.company_id)) AS "sendingWindow"),
       free AS (${FREE_INSTANCES}),
       held AS (
         UPDATE instance_pacing p SET held_by = $1, held_until = now() + make_interval(secs => $3)
           FROM free WHERE p.gateway_config_id = free.gateway_config_id
          RETURNING p.gateway_config_id, free.quota),
       first_contacts AS (${FIRST_CONTACTS}),
       taken AS (
         UPDATE campaign_contacts c SET ${TAKE_SET}
           FROM first_contacts f WHERE c.id = f.contact_id
          RETURNING c.campaign_id, ${TAKEN_CONTACT_COLUMNS})
       SELECT leased.*, held.gateway_config_id IS NOT NULL AS "instanceHeld", held.quota, taken.*
         FROM leased LEFT JOIN held ON held.gateway_config_id = leased."gatewayConfigId"
              LEFT JOIN taken ON taken.campaign_id = leased.id`,
      [workerId, limit, leaseSeconds, inFlight, this.config.appTimezone],
    );
    return rows.map(claimOf);
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
      `WITH campaign AS (${RENEW_LEASE}),
       taken AS (
         UPDATE campaign_contacts c SET ${TAKE_SET}
          WHERE id = ${nextReadyContactSql('$1', `EXISTS (SELECT 1 FROM campaign WHERE status = 'ACTIVE' AND "lockedBy" = $2)`)}
          RETURNING ${TAKEN_CONTACT_COLUMNS})
       SELECT campaign.*, taken.* FROM campaign LEFT JOIN taken ON true`,
      [campaignId, workerId, leaseSeconds],
    );
    return rows[0] ? splitTaken(rows[0]) : { campaign: null, contact: null };
  }

  /**
   * Locks the campaign row for this transaction; pause and cancel wait for it, then win. NO KEY
   * UPDATE (see CampaignsRepository.lockForUpdate): the senders of a pool check their pool's
   * row with a key-share lock whenever they are written twice in a transaction.
   */
  async lockCampaign(tx: Transaction, campaignId: number): Promise<DispatchCampaign | null> {
    const rows = await queryRows<DispatchCampaign>(
      tx,
      `SELECT ${CAMPAIGN_COLUMNS}, ${COMPANY_ACTIVE} FROM campaigns WHERE id = $1 FOR NO KEY UPDATE`,
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
      `UPDATE campaign_contacts c SET ${TAKE_SET}
        WHERE id = ${nextReadyContactSql('$1')}
        RETURNING id, phone_number AS "phoneNumber", name, retry_count AS attempts,
                  ${CONTACT_IS_BLOCKED} AS blocked`,
      [campaignId],
    );
    return rows[0] ?? null;
  }

  /**
   * When a campaign with nothing ready should look again: its earliest retry, or a second
   * after its earliest reconciliation is due; null when no contact is unfinished. While its
   * instance's reach-out lock keeps the contacts left from it, the lock's end (REACHOUT_LOCKED;
   * the lock's end or lift wakes it sooner), or a warm contact's retry under a COLD lock.
   */
  async nextLookAt(
    tx: Transaction,
    campaignId: number,
  ): Promise<{ at: Date; waitingReason: WaitingReason | null } | null> {
    const rows = await queryRows<{ at: Date | null; unfinished: boolean; locked: boolean }>(
      tx,
      `WITH lock AS (
         SELECT g.reachout_lock_scope AS scope, g.reachout_locked_until AS until
           FROM campaigns k JOIN gateway_configs g ON g.id = k.gateway_config_id
          WHERE k.id = $1 AND g.reachout_lock_scope IS NOT NULL)
       SELECT CASE WHEN (SELECT scope FROM lock) IS NULL
                   THEN least(min(next_attempt_at) FILTER (WHERE status = 'PENDING'),
                              min(reconcile_at) FILTER (WHERE status = 'UNCERTAIN') + interval '1 second',
                              now() + interval '5 seconds')
                   ELSE least(min(next_attempt_at) FILTER (WHERE status = 'PENDING' AND warm
                                                             AND (SELECT scope FROM lock) = 'COLD'),
                              min(reconcile_at) FILTER (WHERE status = 'UNCERTAIN') + interval '1 second',
                              greatest((SELECT until FROM lock), now() + interval '1 second')) END AS at,
              count(*) FILTER (WHERE status = 'PENDING') > 0 AND (SELECT scope FROM lock) IS NOT NULL AS locked,
              count(*) > 0 AS unfinished
         FROM campaign_contacts WHERE campaign_id = $1 AND status IN (${UNFINISHED})`,
      [campaignId],
    );
    const row = rows[0];
    if (!row?.unfinished) {
      return null;
    }
    return { at: row.at ?? new Date(), waitingReason: row.locked ? 'REACHOUT_LOCKED' : null };
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

/** One row of the claim: the leased campaign, its instance's hold, the contact it took. */
type ClaimRow = DispatchCampaign &
  TakenContactColumns &
  Pick<
    ClaimedCampaign,
    'takenOver' | 'sendingWindow' | 'instanceHeld' | 'quota' | 'warmFirst' | 'throughputPerSecond'
  > & {
    companyActive: boolean;
    campaign_id: number | null;
  };

function claimOf(row: ClaimRow): ClaimedCampaign {
  const {
    takenOver,
    sendingWindow,
    instanceHeld,
    quota,
    warmFirst,
    throughputPerSecond,
    campaign_id: _taken,
    ...rest
  } = row;
  const { campaign, contact } = splitTaken(rest);
  return {
    id: campaign.id,
    takenOver,
    companyActive: row.companyActive,
    gatewayConfigId: campaign.gatewayConfigId,
    minInterval: campaign.minInterval,
    maxInterval: campaign.maxInterval,
    longPauseEvery: campaign.longPauseEvery,
    warmFirst,
    throughputPerSecond,
    sendingWindow,
    instanceHeld,
    quota,
    firstSend: contact ? { campaign, contact } : null,
  };
}
