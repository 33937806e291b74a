import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryRows } from '../../../database/query-rows';
import { CAMPAIGN_LIFECYCLE } from '../domain/campaign-status';
import type { SenderLoss } from '../domain/sender-pool';
import { warmSql } from './campaigns.repository';
import { SENDER_POOLS_CHANNEL } from '../application/ports/dispatch-channel';

const RESUME = CAMPAIGN_LIFECYCLE.sql('resume');
/** A sender that had ended its share sends again once it is given more: retry's move. */
const REOPEN = CAMPAIGN_LIFECYCLE.sql('retry');

/**
 * The number of configuration `g` can send, as far as the service knows: no reach-out lock,
 * and not seen closed (logged out, disconnected) last.
 */
const NUMBER_CAN_SEND = `(g.reachout_lock_scope IS NULL AND g.instance_state IS DISTINCT FROM 'close')`;

/**
 * The senders of pool `$1` that can take contacts, as `healthy (id, config, n, total)`: not
 * lost, sending or done with their share, their number not under a reach-out lock; `n` numbers
 * them from 0 in id order, `total` counts them. `$2` is left out (the sender giving contacts).
 */
const HEALTHY_SENDERS = `
  healthy AS (
    SELECT s.id, s.gateway_config_id AS config, (row_number() OVER (ORDER BY s.id) - 1)::int AS n,
           count(*) OVER ()::int AS total
      FROM campaigns s JOIN gateway_configs g ON g.id = s.gateway_config_id
     WHERE s.pool_id = $1 AND s.id <> $1 AND s.id <> $2 AND s.sender_lost_at IS NULL
       AND s.status IN ('ACTIVE', 'COMPLETED') AND ${NUMBER_CAN_SEND})`;

/**
 * Moves the contacts of the CTE `moving (id, target)` to their target sender, each still
 * PENDING (a contact another statement took meanwhile stays where it is), its warmth read
 * again for its new number; the senders' totals follow, and a sender that had ended its share
 * sends again. Answers `moved`.
 */
const MOVE_TAIL = `
  moved AS (
    UPDATE campaign_contacts c
       SET campaign_id = m.target,
           warm = ${warmSql('c.phone_number', '(SELECT gateway_config_id FROM campaigns WHERE id = m.target)', 'c.company_id')}
      FROM moving m
     WHERE c.id = m.id AND c.status = 'PENDING'
     RETURNING c.campaign_id, m.source),
  gained AS (SELECT campaign_id AS id, count(*)::int AS n FROM moved GROUP BY campaign_id),
  lost AS (SELECT source AS id, count(*)::int AS n FROM moved GROUP BY source),
  counted AS (
    UPDATE campaigns s
       SET total_contacts = s.total_contacts + coalesce(gained.n, 0) - coalesce(lost.n, 0),
           status = CASE WHEN gained.n > 0 AND s.status IN (${REOPEN.from}) THEN ${REOPEN.to} ELSE s.status END,
           completed_at = CASE WHEN gained.n > 0 THEN NULL ELSE s.completed_at END,
           next_send_at = CASE WHEN gained.n > 0 THEN least(s.next_send_at, now()) ELSE s.next_send_at END,
           updated_at = now()
      FROM (SELECT id FROM gained UNION SELECT id FROM lost) touched
      LEFT JOIN gained ON gained.id = touched.id LEFT JOIN lost ON lost.id = touched.id
     WHERE s.id = touched.id
     RETURNING 1)
  SELECT (SELECT count(*) FROM moved)::int AS moved, (SELECT count(*) FROM counted)::int AS touched`;

/**
 * Failover within a pool (domain/sender-pool.ts): a sender lost, its contacts still PENDING
 * moved to the healthy senders, and a sender back taking its share. Only PENDING contacts move
 * (never one SENDING, UNCERTAIN or sent), each by an UPDATE of its own row that re-checks it:
 * a contact is in exactly one sender's row, so it can never be sent by two numbers. The caller
 * holds the pool's row; rows another statement holds are skipped, not waited for.
 */
@Injectable()
export class SenderFailoverRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The sender is lost for `reason`; a sender already lost keeps its first cause. */
  async markLost(
    tx: Transaction,
    senderId: number,
    reason: string,
    cause: SenderLoss,
  ): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns SET sender_lost_at = now(), sender_lost_reason = left($2, 300), sender_lost_cause = $3
        WHERE id = $1 AND sender_lost_at IS NULL`,
      [senderId, reason, cause],
    );
  }

  /**
   * The instance logged out: every pool sender of it not lost yet is lost, one done with its
   * share too (a failover would hand it contacts again otherwise). Answers how many; the caller
   * wakes the supervisor.
   */
  async markLostOnInstance(gatewayConfigId: number, reason: string): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE campaigns SET sender_lost_at = now(), sender_lost_reason = left($2, 300), sender_lost_cause = 'GATEWAY'
        WHERE gateway_config_id = $1 AND pool_id IS NOT NULL AND pool_id <> id AND sender_lost_at IS NULL
          AND status IN ('ACTIVE', 'PAUSED', 'COMPLETED')
        RETURNING id`,
      [gatewayConfigId, reason],
    );
    if (rows.length > 0) {
      await this.dataSource.query(`SELECT pg_notify($1, '')`, [SENDER_POOLS_CHANNEL]);
    }
    return rows.length;
  }

  /**
   * The lost sender's contacts it cannot send (all of them; only the cold ones while its lock
   * lets it reach warm people) spread over the pool's healthy senders in turn. Answers how many
   * moved and how many senders could take them (none: nothing moved).
   */
  async moveStranded(
    tx: Transaction,
    poolId: number,
    senderId: number,
  ): Promise<{ moved: number; healthy: number }> {
    const rows = await queryRows<{ moved: number; healthy: number }>(
      tx,
      `WITH ${HEALTHY_SENDERS},
       stranded AS (
         SELECT c.id FROM campaign_contacts c
           JOIN campaigns s ON s.id = c.campaign_id JOIN gateway_configs g ON g.id = s.gateway_config_id
          WHERE c.campaign_id = $2 AND c.status = 'PENDING'
            AND ${STRANDED_BY_LOSS}
          ORDER BY c.id FOR UPDATE OF c SKIP LOCKED),
       moving AS (
         SELECT t.id, h.id AS target, $2::int AS source
           FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM stranded) t
           JOIN healthy h ON h.n = t.n % h.total),
       ${MOVE_TAIL.trim()}, (SELECT count(*) FROM healthy)::int AS healthy`,
      [poolId, senderId],
    );
    return rows[0];
  }

  /**
   * The sender is back: no longer lost, sending again if it was stopped, and given its share of
   * the pool's contacts still PENDING on the other healthy senders (every k-th of them, k the
   * senders sending then). Answers how many it took.
   */
  async rejoin(tx: Transaction, poolId: number, senderId: number): Promise<number> {
    await execute(
      tx,
      `UPDATE campaigns
          SET sender_lost_at = NULL, sender_lost_reason = NULL, sender_lost_cause = NULL,
              status = CASE WHEN status IN (${RESUME.from}) THEN ${RESUME.to} ELSE status END,
              paused_at = NULL, pause_reason = NULL, internal_error_streak = 0, next_send_at = now(),
              disconnected_since = NULL, updated_at = now()
        WHERE id = $1`,
      [senderId],
    );
    const rows = await queryRows<{ moved: number }>(
      tx,
      `WITH ${HEALTHY_SENDERS},
       waiting AS (
         SELECT c.id, c.campaign_id FROM campaign_contacts c
          WHERE c.campaign_id IN (SELECT id FROM healthy) AND c.status = 'PENDING'
          ORDER BY c.id FOR UPDATE OF c SKIP LOCKED),
       moving AS (
         SELECT w.id, $2::int AS target, w.campaign_id AS source
           FROM (SELECT id, campaign_id, row_number() OVER (ORDER BY id) AS n FROM waiting) w
          WHERE w.n % ((SELECT count(*) FROM healthy) + 1) = 0),
       ${MOVE_TAIL.trim()}`,
      [poolId, senderId],
    );
    return rows[0].moved;
  }

  /** The pool paused because no sender was left (its own sender_lost_at), or back from it. */
  async markPoolWithoutSenders(tx: Transaction, poolId: number, without: boolean): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns SET sender_lost_at = CASE WHEN $2 THEN now() END WHERE id = $1`,
      [poolId, without],
    );
  }

  /**
   * PAUSED pools that lost every sender and have one back (a lost one whose cause is over, or
   * one never lost whose number can send again), with that sender: they resume.
   */
  pausedPoolsWithSenderBack(limit: number): Promise<Array<{ poolId: number; senderId: number }>> {
    return queryRows(
      this.dataSource,
      `SELECT DISTINCT ON (p.id) p.id AS "poolId", s.id AS "senderId"
         FROM campaigns p JOIN campaigns s ON s.pool_id = p.id AND s.id <> p.id
         JOIN gateway_configs g ON g.id = s.gateway_config_id
        WHERE p.pool_id = p.id AND p.status = 'PAUSED' AND p.sender_lost_at IS NOT NULL
          AND (${SENDER_CAUSE_OVER}
               OR (s.sender_lost_at IS NULL AND s.status NOT IN ('CANCELLED', 'FAILED') AND ${NUMBER_CAN_SEND}))
        ORDER BY p.id, s.id LIMIT $1`,
      [limit],
    );
  }
}

/** A lost sender `s` whose cause is over, its configuration `g`: its lock ended, or its instance was seen open since. */
export const SENDER_CAUSE_OVER = `(s.sender_lost_at IS NOT NULL AND g.reachout_lock_scope IS NULL
  AND (s.sender_lost_cause = 'LOCKED'
       OR (g.instance_state = 'open' AND g.instance_state_at > s.sender_lost_at)))`;

/**
 * Whether contact `c` of the lost sender `s` (configuration `g`) is stranded there: every one
 * of a sender lost to its gateway; of a locked one, those its lock keeps it from (the cold ones,
 * or all under a lock on everything).
 */
export const STRANDED_BY_LOSS = `(s.sender_lost_cause = 'GATEWAY' OR g.reachout_lock_scope = 'ALL'
  OR (g.reachout_lock_scope = 'COLD' AND NOT c.warm))`;
