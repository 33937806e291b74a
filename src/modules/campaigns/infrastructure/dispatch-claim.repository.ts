import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { AppConfig } from '../../../config/app-config.service';
import { queryPrepared, queryRows } from '../../../database/query-rows';
import { statusesAllowing } from '../domain/campaign-status';
import type { WaitingReason } from '../domain/campaign.entity';
import type { ClaimedCampaign, ContactToSend, DispatchCampaign } from '../domain/dispatch-records';
import {
  CLAIM_BY_SCAN,
  CLAIM_LISTED,
  DUE_INSTANCE_IDS,
  DUE_INSTANCES_PER_CLAIM,
  LISTED_DUE_INSTANCES,
  nextReadyContactSql,
} from './dispatch-claim.sql';
import {
  CAMPAIGN_COLUMNS,
  CAMPAIGN_MOVE,
  COMPANY_ACTIVE,
  CONTACT_IS_BLOCKED,
  MOVE,
  RENEW_LEASE,
  TAKE_SET,
  TAKEN_CONTACT_COLUMNS,
  UNFINISHED,
} from './dispatch.sql';

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
   * instances first. In the same statement it holds, for this worker, each of their instances
   * that may send now (see ClaimedCampaign.instanceHeld). Campaigns this worker still has in
   * flight (a send that outlived its lease) are never claimed again by it. The due instances are
   * counted first: none costs no claim, and few are claimed by index (CLAIM_LISTED) where many
   * are claimed in one pass (CLAIM_BY_SCAN). Prepared statements: their plans are made once
   * per connection.
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
    // One more than the listed claim takes says "many": the scan reads the rest itself.
    const due = await queryPrepared<{ id: number }>(
      this.dataSource,
      'dispatch_due_instances',
      DUE_INSTANCE_IDS,
      [Math.min(limit * DUE_INSTANCES_PER_CLAIM, LISTED_DUE_INSTANCES + 1)],
    );
    if (due.length === 0) {
      return [];
    }
    const values = [workerId, limit, leaseSeconds, inFlight, this.config.appTimezone];
    const rows =
      due.length <= LISTED_DUE_INSTANCES
        ? await queryPrepared<ClaimRow>(this.dataSource, 'dispatch_claim_listed', CLAIM_LISTED, [
            ...values,
            due.map((instance) => instance.id),
          ])
        : await queryPrepared<ClaimRow>(
            this.dataSource,
            'dispatch_claim_by_scan',
            CLAIM_BY_SCAN,
            values,
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
