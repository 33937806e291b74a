import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { holderIsGoneSql } from '../../../common/work/worker-liveness';
import { execute, queryRows } from '../../../database/query-rows';
import type { WaitingReason } from '../domain/campaign.entity';
import type { Requeue, RequeueResult } from '../domain/dispatch-records';
import { NEVER_PAIRED, WAITING_FOR_INSTANCE } from './dispatch.sql';

/** Why a campaign's next send waits, when a lease is given back without sending. */
export interface Deferral {
  /** Not before (its window opens, its instance's day begins or its slot comes). */
  until: Date;
  /** Null: only the instance's turn, which keeps a wait for the instance known from its last send. */
  reason: WaitingReason | null;
  /** The claim held the campaign's instance for this worker: the hold ends too. */
  instanceHeld: boolean;
}

/** After an outcome that sent nothing: the campaign's next send and what the outcome noted. */
export interface Reschedule {
  nextSendInMs: number;
  cause: Requeue['cause'] | 'sent' | 'failed';
  /** A gateway call was made (send-outcome.ts: pacesInstance): the campaign's turn counts. */
  instancePaced?: boolean;
  /** For a disconnection: what the answer proved (INSTANCE_DISCONNECTED when omitted). */
  waitingReason?: WaitingReason;
}

const LEASE_LOST: RequeueResult = {
  leaseHeld: false,
  disconnectedForMs: 0,
  disconnectedSince: null,
  internalErrorStreak: 0,
  waitingReason: null,
};

/**
 * Giving a campaign's lease back, and taking the leases of dead workers. Every statement here
 * writes only while `workerId` holds the lease: a worker that lost it changes nothing.
 */
@Injectable()
export class DispatchLeaseRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Gives back a lease taken for nothing, on its own: the campaign may not send before
   * `deferral.until`, for its reason; the instance's hold ends with it when the claim took it.
   * The campaign row is written first: a write of a campaign locks its instance's row after it
   * (the due time, kept by a trigger), so every writer takes the two in that order.
   */
  async defer(campaignId: number, workerId: string, deferral: Deferral): Promise<void> {
    await execute(
      this.dataSource,
      `WITH campaign AS (
         UPDATE campaigns SET next_send_at = greatest($3, now()),
                waiting_reason = CASE WHEN $4::varchar IS NULL AND ${WAITING_FOR_INSTANCE}
                                      THEN waiting_reason ELSE $4 END,
                locked_by = NULL, locked_until = NULL
          WHERE id = $1 AND locked_by = $2
          RETURNING gateway_config_id)
       UPDATE instance_pacing p SET held_by = NULL, held_until = NULL
         FROM campaign
        WHERE $5::boolean AND p.held_by = $2 AND p.gateway_config_id = campaign.gateway_config_id`,
      [campaignId, workerId, deferral.until, deferral.reason, deferral.instanceHeld],
    );
  }

  /**
   * After an outcome that sent nothing: schedules the campaign's next send `nextSendInMs`
   * from now, notes a disconnection (with `waitingReason`) or our own error, and gives the
   * lease back. INSTANCE_NOT_PAIRED stays while the instance stays disconnected: an answer
   * that proves less (Connection Closed, for a number the gateway must look up) does not undo
   * the proof. Our own error, raised before any gateway call, leaves the disconnection as it was.
   */
  async rescheduleAndRelease(
    tx: Transaction,
    campaignId: number,
    workerId: string,
    next: Reschedule,
  ): Promise<RequeueResult> {
    const rows = await queryRows<Omit<RequeueResult, 'leaseHeld'>>(
      tx,
      `UPDATE campaigns
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
    return rows[0] ? { leaseHeld: true, ...rows[0] } : LEASE_LOST;
  }

  /**
   * Gives `workerId`'s lease back (`tx` null: on its own), moving the next send to
   * `nextSendAt` when given, and noting why it waits when `waitingReason` is given.
   */
  async release(
    tx: Transaction | null,
    campaignId: number,
    workerId: string,
    nextSendAt: Date | null = null,
    waitingReason: WaitingReason | null = null,
  ): Promise<void> {
    await execute(
      tx ?? this.dataSource,
      `UPDATE campaigns SET locked_until = NULL, locked_by = NULL, next_send_at = coalesce($3, next_send_at),
              waiting_reason = coalesce($4, waiting_reason)
        WHERE id = $1 AND locked_by = $2`,
      [campaignId, workerId, nextSendAt, waitingReason],
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
}
