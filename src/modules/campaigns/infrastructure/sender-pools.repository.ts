import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, onReadPool, queryRows } from '../../../database/query-rows';
import { CAMPAIGN_LIFECYCLE, type CampaignAction } from '../domain/campaign-status';
import type { CampaignCounters } from '../domain/dispatch-records';
import { SENDER_ENDED_STATUSES, type PoolFigures, type PoolSender } from '../domain/sender-pool';
import { CAMPAIGN_MOVE, UNFINISHED } from './dispatch.sql';
import { poolContactsInsertSql } from './pool-contacts.sql';
import { SENDER_POOLS_CHANNEL } from '../application/ports/dispatch-channel';
import { SENDER_CAUSE_OVER, STRANDED_BY_LOSS } from './sender-failover.repository';

/** The senders of pool `$1` (its own row left out), as the alias `s`. */
const SENDERS_OF_POOL = `campaigns s WHERE s.pool_id = $1 AND s.id <> $1`;

/** The counters of a pool: its senders' sums, as CampaignCounters columns (the pool's row `p`). */
const POOL_COUNTER_SUMS = `
  coalesce(sum(s.total_contacts), 0)::int AS "totalContacts",
  coalesce(sum(s.sent_contacts), 0)::int AS "sentContacts",
  coalesce(sum(s.failed_contacts), 0)::int AS "failedContacts",
  coalesce(sum(s.delivered_contacts), 0)::int AS "deliveredContacts",
  coalesce(sum(s.read_contacts), 0)::int AS "readContacts",
  coalesce(sum(s.replied_contacts), 0)::int AS "repliedContacts"`;

/** The first sender `s` of the group for which `condition` holds, or null. */
const firstSender = (condition: string): string =>
  `(array_agg(s.id ORDER BY s.id) FILTER (WHERE ${condition}))[1]`;

/** Sender `s` has a contact `c` PENDING for which `condition` holds (the pending index, by key). */
const holdsContacts = (condition: string): string =>
  `EXISTS (SELECT 1 FROM campaign_contacts c WHERE c.campaign_id = s.id AND c.status = 'PENDING' AND (${condition}))`;

/** SENDER_ENDED_STATUSES as SQL literals (from the domain, never from input). */
const FINAL = SENDER_ENDED_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * Sender `s` still has work: not ended, and not a lost sender left with nothing of its own to
 * finish (its PENDING contacts went to the others; one SENDING or UNCERTAIN still counts).
 */
const SENDER_LEFT = `(s.status NOT IN (${FINAL}) AND NOT (s.sender_lost_at IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM campaign_contacts c WHERE c.campaign_id = s.id AND c.status IN (${UNFINISHED}))))`;

/** The columns each move of a person writes on the senders (the pool's entity writes its own). */
const SENDER_MOVES: Partial<Record<CampaignAction, string>> = {
  pause: `paused_at = now()`,
  resume: `paused_at = NULL, pause_reason = NULL, internal_error_streak = 0, send_failure_streak = 0,
           watched_sends = 0, watched_refusals = 0, next_send_at = now()`,
  cancel: `completed_at = now(), next_send_at = NULL`,
  retry: `completed_at = NULL, failure_reason = NULL, paused_at = NULL, pause_reason = NULL,
          internal_error_streak = 0, send_failure_streak = 0, watched_sends = 0, watched_refusals = 0,
          waiting_reason = NULL, disconnected_since = NULL, next_send_at = now()`,
  launch: `started_at = now(), next_send_at = now()`,
  schedule: `next_send_at = NULL`,
};

/**
 * A campaign on a pool of senders (domain/sender-pool.ts): the senders' rows as the pool sees
 * them. The lock order is the pool's row first, then its senders': the engine locks only a
 * sender's row, so nothing here waits on a lock another writer holds while waiting on ours.
 */
@Injectable()
export class SenderPoolsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Wakes the supervisor once the transaction commits. */
  async announce(tx: Transaction): Promise<void> {
    await execute(tx, `SELECT pg_notify($1, '')`, [SENDER_POOLS_CHANNEL]);
  }

  /** Up to `limit` ACTIVE pools after the id `afterId`, in id order, with their senders' figures. */
  activePools(afterId: number, limit: number): Promise<PoolFigures[]> {
    return queryRows<PoolFigures>(
      this.dataSource,
      `SELECT p.id, p.progress_step AS "progressStep", ${POOL_COUNTER_SUMS},
              count(*) FILTER (WHERE ${SENDER_LEFT})::int AS "sendersLeft",
              ${firstSender(`s.status = 'PAUSED' AND s.sender_lost_at IS NULL`)} AS "stoppedSenderId",
              ${firstSender(`s.status = 'ACTIVE' AND s.sender_lost_at IS NULL AND g.reachout_lock_scope IS NOT NULL
                             AND ${holdsContacts(`g.reachout_lock_scope = 'ALL' OR NOT c.warm`)}`)} AS "lockedSenderId",
              ${firstSender(`s.sender_lost_at IS NOT NULL AND ${holdsContacts(STRANDED_BY_LOSS)}`)} AS "lostSenderId",
              ${firstSender(SENDER_CAUSE_OVER)} AS "rejoiningSenderId"
         FROM campaigns p JOIN campaigns s ON s.pool_id = p.id AND s.id <> p.id
         LEFT JOIN gateway_configs g ON g.id = s.gateway_config_id
        WHERE p.pool_id = p.id AND p.status = 'ACTIVE' AND p.id > $1
        GROUP BY p.id ORDER BY p.id LIMIT $2`,
      [afterId, limit],
    );
  }

  /** A stopped sender's instance and why it stopped, to name it in the pool's own stop. */
  async stoppedSender(
    tx: Transaction,
    senderId: number,
  ): Promise<{ instance: string; reason: string | null } | null> {
    const rows = await queryRows<{ instance: string; reason: string | null }>(
      tx,
      `SELECT gateway_instance AS instance, pause_reason AS reason FROM campaigns
        WHERE id = $1 AND status = 'PAUSED'`,
      [senderId],
    );
    return rows[0] ?? null;
  }

  /**
   * Completes the pool, the caller holding its row, once every sender is over: its counters
   * become its senders' sums, which stay its figures. Null when it is not ACTIVE or a sender
   * still sends.
   */
  async complete(tx: Transaction, poolId: number): Promise<CampaignCounters | null> {
    const rows = await queryRows<CampaignCounters>(
      tx,
      `WITH sums AS (
         SELECT ${POOL_COUNTER_SUMS}, count(*) FILTER (WHERE ${SENDER_LEFT}) AS senders_left
           FROM ${SENDERS_OF_POOL}),
       lost_left AS (
         UPDATE campaigns s SET status = ${CAMPAIGN_MOVE.cancelLost.to}, completed_at = now(), next_send_at = NULL
          WHERE s.pool_id = $1 AND s.id <> $1 AND s.sender_lost_at IS NOT NULL
            AND s.status IN (${CAMPAIGN_MOVE.cancelLost.from}) AND (SELECT senders_left FROM sums) = 0)
       UPDATE campaigns p
          SET status = ${CAMPAIGN_MOVE.complete.to}, completed_at = now(), next_send_at = NULL, updated_at = now(),
              total_contacts = sums."totalContacts", sent_contacts = sums."sentContacts",
              failed_contacts = sums."failedContacts", delivered_contacts = sums."deliveredContacts",
              read_contacts = sums."readContacts", replied_contacts = sums."repliedContacts"
         FROM sums
        WHERE p.id = $1 AND p.status IN (${CAMPAIGN_MOVE.complete.from}) AND sums.senders_left = 0
        RETURNING sums.*, p.progress_step AS "progressStep", p.status`,
      [poolId],
    );
    return rows[0] ?? null;
  }

  /**
   * The engine stops the pool (pause, or fail for an automation's run), the caller holding its
   * row: its senders still sending stop with it. Null when the move no longer applies.
   */
  async stop(
    tx: Transaction,
    poolId: number,
    how: 'pause' | 'fail',
    reason: string,
  ): Promise<CampaignCounters | null> {
    const move = CAMPAIGN_LIFECYCLE.sql(how);
    const columns =
      how === 'fail'
        ? `failure_reason = $2, completed_at = now(), next_send_at = NULL`
        : `pause_reason = $2, paused_at = now(), internal_error_streak = 0`;
    const rows = await queryRows<CampaignCounters>(
      tx,
      `WITH senders AS (
         UPDATE campaigns s SET status = ${move.to}, ${columns}, updated_at = now()
          WHERE s.pool_id = $1 AND s.id <> $1 AND s.status IN (${move.from})
          RETURNING 1),
       pool AS (
         UPDATE campaigns SET status = ${move.to}, ${columns}, updated_at = now()
          WHERE id = $1 AND status IN (${move.from})
          RETURNING progress_step, status)
       SELECT ${POOL_COUNTER_SUMS}, (SELECT progress_step FROM pool) AS "progressStep",
              (SELECT status FROM pool) AS status, (SELECT count(*) FROM senders)::int AS moved
         FROM ${SENDERS_OF_POOL} HAVING EXISTS (SELECT 1 FROM pool)`,
      [poolId, reason.slice(0, 1000)],
    );
    return rows[0] ?? null;
  }

  /**
   * A person's move of the pool (pause, resume, cancel, retry), made on its senders that allow
   * it, under the pool's row lock the caller holds (a scheduled pool's senders start on their
   * own, at the same time). A lost sender is not resumed: its contacts went to the others.
   */
  async moveSenders(tx: Transaction, poolId: number, action: CampaignAction): Promise<void> {
    const move = CAMPAIGN_LIFECYCLE.sql(action);
    const columns = SENDER_MOVES[action];
    if (!columns) {
      throw new Error(`A pool's senders do not make the move ${action} with it`);
    }
    await execute(
      tx,
      `UPDATE campaigns s SET status = ${move.to}, ${columns}, updated_at = now()
        WHERE s.pool_id = $1 AND s.id <> $1 AND s.status IN (${move.from})
          AND ($2::boolean OR s.sender_lost_at IS NULL)`,
      [poolId, action !== 'resume'],
    );
  }

  /**
   * The pool's contacts in one statement, each given to one sender (poolContactsInsertSql), in
   * the order given, each sender's count written with them; numbers on the company's active
   * block list are left out when `applyBlockList`. Answers how many it holds.
   */
  async insertContacts(
    tx: Transaction,
    companyId: number,
    poolId: number,
    contacts: { phones: string[]; names: string[] },
    applyBlockList: boolean,
  ): Promise<number> {
    // Standing alone, the NOT EXISTS is an anti-join (see CampaignsRepository.insertContacts).
    const notBlocked = applyBlockList
      ? `WHERE NOT EXISTS (SELECT 1 FROM blocked_contacts b
                            WHERE b.company_id = $2 AND b.phone_number = i.phone AND b.is_active)`
      : '';
    const rows = await queryRows<{ inserted: number }>(
      tx,
      `WITH input AS (
         SELECT phone, name, ord AS id FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS u(phone, name, ord)),
       kept AS (SELECT i.* FROM input i ${notBlocked}),
       inserted AS (${poolContactsInsertSql('kept', '$1', '$2')}),
       per_sender AS (SELECT campaign_id, count(*)::int AS n FROM inserted GROUP BY campaign_id),
       counted AS (
         UPDATE campaigns s SET total_contacts = per_sender.n
           FROM per_sender WHERE s.id = per_sender.campaign_id RETURNING 1)
       SELECT (SELECT count(*) FROM inserted)::int AS inserted, (SELECT count(*) FROM counted) AS senders`,
      [poolId, companyId, contacts.phones, contacts.names],
    );
    return rows[0].inserted;
  }

  /** See poolContactsInsertSql: for a caller's set-based selection (an automation's run). */
  contactsInsertSql(source: string, poolIdParam: string, companyIdParam: string): string {
    return poolContactsInsertSql(source, poolIdParam, companyIdParam);
  }

  /** The pool's row becomes the pool, with its contacts and the numbers the block list left out. */
  async setPoolCounts(
    tx: Transaction,
    poolId: number,
    total: number,
    blockedRemoved: number,
  ): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns SET pool_id = id, total_contacts = $2, blocked_contacts_removed = $3 WHERE id = $1`,
      [poolId, total, blockedRemoved],
    );
  }

  /**
   * Each sender's contacts as counted now, and the pool's: its senders' sum and the numbers
   * the block list left out. The pool's row becomes the pool (pool_id, its own id).
   */
  async setContactCounts(tx: Transaction, poolId: number, blockedRemoved: number): Promise<void> {
    await execute(
      tx,
      `WITH counted AS (
         UPDATE campaigns s
            SET total_contacts = (SELECT count(*) FROM campaign_contacts c WHERE c.campaign_id = s.id)
          WHERE s.pool_id = $1 AND s.id <> $1
          RETURNING s.total_contacts)
       UPDATE campaigns SET pool_id = id, total_contacts = (SELECT coalesce(sum(total_contacts), 0) FROM counted),
              blocked_contacts_removed = $2
        WHERE id = $1`,
      [poolId, blockedRemoved],
    );
  }

  /** The pool's senders, under their row locks, with their counters and whether each has ended. */
  senderCounts(
    tx: Transaction,
    poolId: number,
  ): Promise<
    Array<{
      id: number;
      ended: boolean;
      totalContacts: number;
      sentContacts: number;
      failedContacts: number;
    }>
  > {
    return queryRows(
      tx,
      `SELECT s.id, s.status IN (${CAMPAIGN_LIFECYCLE.sql('retry').from}) AS ended, s.total_contacts AS "totalContacts",
              s.sent_contacts AS "sentContacts", s.failed_contacts AS "failedContacts"
         FROM ${SENDERS_OF_POOL} ORDER BY s.id FOR NO KEY UPDATE`,
      [poolId],
    );
  }

  /** One sender as a lost one is told of: its number and why it was lost. */
  async senderOf(
    tx: Transaction,
    senderId: number,
  ): Promise<{ gatewayConfigId: number; instance: string; reason: string; lostAt: Date }> {
    const rows = await queryRows<{
      gatewayConfigId: number;
      instance: string;
      reason: string;
      lostAt: Date;
    }>(
      tx,
      `SELECT gateway_config_id AS "gatewayConfigId", gateway_instance AS instance,
              coalesce(sender_lost_reason, pause_reason, '') AS reason, coalesce(sender_lost_at, now()) AS "lostAt"
         FROM campaigns WHERE id = $1`,
      [senderId],
    );
    return rows[0];
  }

  /** The configuration of the pool's first sender still sending, for its notices (null: none). */
  async sendingConfig(tx: Transaction, poolId: number): Promise<number | null> {
    const rows = await queryRows<{ id: number }>(
      tx,
      `SELECT s.gateway_config_id AS id FROM ${SENDERS_OF_POOL}
          AND s.sender_lost_at IS NULL AND s.status = 'ACTIVE' ORDER BY s.id LIMIT 1`,
      [poolId],
    );
    return rows[0]?.id ?? null;
  }

  /** A pool paused for want of senders becomes ACTIVE again, with its senders not lost. */
  async resume(tx: Transaction, poolId: number): Promise<boolean> {
    const move = CAMPAIGN_LIFECYCLE.sql('resume');
    const rows = await queryRows<{ id: number }>(
      tx,
      `UPDATE campaigns SET status = ${move.to}, paused_at = NULL, pause_reason = NULL, sender_lost_at = NULL,
              updated_at = now()
        WHERE id = $1 AND status IN (${move.from}) AND sender_lost_at IS NOT NULL
        RETURNING id`,
      [poolId],
    );
    if (rows.length === 0) {
      return false;
    }
    await this.moveSenders(tx, poolId, 'resume');
    return true;
  }

  /** The senders of these pools, each pool's in the order they were given. */
  async sendersOf(poolIds: readonly number[]): Promise<PoolSender[]> {
    if (poolIds.length === 0) {
      return [];
    }
    return onReadPool(this.dataSource, (reader) =>
      reader.query(
        `SELECT s.pool_id AS "poolId", s.id, s.gateway_config_id AS "gatewayConfigId",
                s.gateway_instance AS instance, s.status, s.sender_lost_at AS "senderLostAt",
                s.sender_lost_reason AS "senderLostReason", s.waiting_reason AS "waitingReason",
                s.total_contacts AS "totalContacts", s.sent_contacts AS "sentContacts",
                s.failed_contacts AS "failedContacts", s.delivered_contacts AS "deliveredContacts",
                s.read_contacts AS "readContacts", s.replied_contacts AS "repliedContacts",
                s.opted_out_contacts AS "optedOutContacts",
                s.unknown_outcome_contacts AS "unknownOutcomeContacts"
           FROM campaigns s
          WHERE s.pool_id = ANY($1::int[]) AND s.id <> s.pool_id
          ORDER BY s.pool_id, s.id`,
        [poolIds],
      ),
    );
  }
}
