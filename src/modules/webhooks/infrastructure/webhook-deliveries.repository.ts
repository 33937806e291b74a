import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { countUpTo, queryMilliseconds, queryRows } from '../../../database/query-rows';
import {
  AttemptOutcome,
  AttemptRow,
  ClaimedDelivery,
  DeliveryFilter,
  DeliveryRow,
  INTERRUPTED_BY_CRASH,
  WEBHOOK_DELIVERY_LIFECYCLE,
} from '../domain/webhook-delivery';

const HELD_EXPIRED_ERROR = 'webhook desativado: evento não entregue em 24 horas';

const DELIVERY_COLUMNS = `
  id::text AS id, event_type AS event, campaign_id AS "campaignId", status, attempts,
  last_status_code AS "lastStatusCode", last_error AS "lastError", created_at AS "createdAt",
  delivered_at AS "deliveredAt",
  CASE WHEN status = 'PENDING' AND next_attempt_at < 'infinity' THEN next_attempt_at END AS "nextAttemptAt"`;
/** What an attempt needs, from the delivery `d`, its webhook `w` and its event `e`. */
function claimedColumns(d: string): string {
  return `${d}.id::text AS id, ${d}.company_id AS "companyId", ${d}.webhook_id AS "webhookId",
          ${d}.outbox_event_id::text AS "outboxEventId", ${d}.event_type AS "eventType",
          ${d}.campaign_id AS "campaignId", ${d}.attempts, w.url,
          w.secret_encrypted AS "secretEncrypted",
          CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_encrypted END
            AS "previousSecretEncrypted",
          e.payload`;
}

/** Recently created deliveries are checked for a missed hand-over (see promoteWaiting). */
const RECENT_WAITING = '5 minutes';

/** Each move as the delivery's transition table has it (SQL literals from the table, never input). */
const MOVE = {
  claim: WEBHOOK_DELIVERY_LIFECYCLE.sql('claim'),
  deliver: WEBHOOK_DELIVERY_LIFECYCLE.sql('deliver'),
  retry: WEBHOOK_DELIVERY_LIFECYCLE.sql('retry'),
  expire: WEBHOOK_DELIVERY_LIFECYCLE.sql('expire'),
};
/** Where an attempt's outcome may be written from: the one status every settling move leaves. */
const SETTLED_FROM = MOVE.deliver.from;
/** The statuses a delivery ends in. */
const FINISHED = [MOVE.deliver.to, WEBHOOK_DELIVERY_LIFECYCLE.sql('fail').to].join(', ');

/**
 * recordOutcomes in one statement: the outcomes (guarded by status and attempt number, so a
 * taken-over attempt writes nothing), their attempt-log lines, and the hand-over of each
 * finished delivery's campaign to its next delivery ($8: claim it for this worker).
 */
const RECORD_OUTCOMES = `WITH input AS (
     SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::timestamptz[], $5::int[],
                          $6::text[], $7::int[])
                AS i(id, attempts, status, next_at, code, error, duration)),
   done AS (
     UPDATE webhook_deliveries d
        SET status = i.status, next_attempt_at = coalesce(i.next_at, d.next_attempt_at),
            locked_until = NULL, last_status_code = i.code, last_error = left(i.error, 500),
            delivered_at = CASE WHEN i.status = ${MOVE.deliver.to} THEN now() END,
            finished_at = CASE WHEN i.status IN (${FINISHED}) THEN now() END
       FROM input i
      WHERE d.id = i.id AND d.status IN (${SETTLED_FROM}) AND d.attempts = i.attempts
      RETURNING d.id, d.company_id, d.webhook_id, d.campaign_id, d.outbox_event_id, d.attempts,
                d.attempt_started_at, d.status, i.code, i.error, i.duration),
   logged AS (
     INSERT INTO webhook_delivery_attempts
            (company_id, delivery_id, attempt, started_at, duration_ms, status_code, error)
     SELECT company_id, id, attempts, attempt_started_at, duration, code, left(error, 500)
       FROM done),
   successor AS (
     SELECT done.id AS finished_id,
            (SELECT n.id FROM webhook_deliveries n
              WHERE n.webhook_id = done.webhook_id AND n.campaign_id = done.campaign_id
                AND n.outbox_event_id > done.outbox_event_id AND n.status = 'PENDING'
              ORDER BY n.outbox_event_id LIMIT 1) AS next_id
       FROM done WHERE done.status IN (${FINISHED})),
   next AS (
     UPDATE webhook_deliveries d
        SET next_attempt_at = now(),
            status = CASE WHEN $8::boolean AND w.is_active THEN ${MOVE.claim.to} ELSE d.status END,
            attempts = d.attempts + CASE WHEN $8::boolean AND w.is_active THEN 1 ELSE 0 END,
            attempt_started_at = CASE WHEN $8::boolean AND w.is_active THEN now()
                                      ELSE d.attempt_started_at END,
            locked_until = CASE WHEN $8::boolean AND w.is_active
                                THEN now() + make_interval(secs => $9::float8 / 1000) END
       FROM successor s, webhooks w, outbox_events e
      WHERE d.id = s.next_id AND d.next_attempt_at = 'infinity'
        AND w.id = d.webhook_id AND e.id = d.outbox_event_id
      RETURNING s.finished_id::text AS "finishedId", ${claimedColumns('d')}, d.status)
   SELECT (SELECT array_agg(id::text) FROM done) AS recorded, next.*
     FROM (SELECT 1) AS one LEFT JOIN next ON true`;

/**
 * The delivery queue's SQL. Deliveries are created by the outbox trigger (see the
 * CreateWebhooks migration); a worker claims due ones with SKIP LOCKED and a lease, and a
 * delivery whose lease ran out (its worker died mid-attempt) is put back: at least once.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Marks up to `limit` due deliveries SENDING (an attempt begins) and returns them. Only the
   * earliest unfinished delivery of each (webhook, campaign) may go: event N+1 of a campaign
   * waits until event N is delivered or finally failed. The NOT EXISTS guards that order by
   * itself; most deliveries that must wait are not even due (next_attempt_at 'infinity', see
   * the CreateWebhooks trigger), which keeps this scan short. Webhooks switched off hold theirs.
   */
  claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return queryRows<ClaimedDelivery>(
      this.dataSource,
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE d.status IN (${MOVE.claim.from}) AND d.next_attempt_at <= now()
            AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active)
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                             WHERE p.webhook_id = d.webhook_id AND p.campaign_id = d.campaign_id
                               AND p.outbox_event_id < d.outbox_event_id
                               AND p.status IN ('PENDING', 'SENDING'))
          ORDER BY d.next_attempt_at, d.id
          LIMIT $1
          FOR UPDATE SKIP LOCKED)
       UPDATE webhook_deliveries d
          SET status = ${MOVE.claim.to}, attempts = d.attempts + 1, attempt_started_at = now(),
              locked_until = now() + make_interval(secs => $2::float8 / 1000)
         FROM due, webhooks w, outbox_events e
        WHERE d.id = due.id AND w.id = d.webhook_id AND e.id = d.outbox_event_id
        RETURNING ${claimedColumns('d')}`,
      [limit, leaseMs],
    );
  }

  /**
   * Writes the outcomes of several attempts and their lines in the attempt log, in one
   * statement. When a delivery is finished (DELIVERED or FAILED), the next delivery of its
   * campaign becomes due; with `handOver` (and the webhook on), it is claimed for this worker
   * at once and returned under the finished delivery's id, so an ordered stream goes on
   * without a trip through the claim. An attempt missing from `recorded` was no longer this
   * worker's (its lease ran out and it was taken over): nothing was written for it.
   */
  async recordOutcomes(
    attempts: ReadonlyArray<{
      delivery: Pick<ClaimedDelivery, 'id' | 'attempts'>;
      outcome: AttemptOutcome;
      durationMs: number;
    }>,
    handOver: { leaseMs: number } | null,
  ): Promise<{ recorded: Set<string>; next: Map<string, ClaimedDelivery> }> {
    const rows = await queryRows<
      ClaimedDelivery & { recorded: string[] | null; finishedId: string | null; status: string }
    >(this.dataSource, RECORD_OUTCOMES, [
      attempts.map((a) => a.delivery.id),
      attempts.map((a) => a.delivery.attempts),
      attempts.map((a) => a.outcome.status),
      attempts.map((a) => a.outcome.nextAttemptAt),
      attempts.map((a) => a.outcome.statusCode),
      attempts.map((a) => a.outcome.error),
      attempts.map((a) => Math.round(a.durationMs)),
      handOver !== null,
      handOver?.leaseMs ?? 0,
    ]);
    const next = new Map<string, ClaimedDelivery>();
    for (const { recorded: _recorded, finishedId, status, ...claimed } of rows) {
      if (finishedId !== null && status === WEBHOOK_DELIVERY_LIFECYCLE.target('claim')) {
        next.set(finishedId, claimed);
      }
    }
    return { recorded: new Set(rows[0]?.recorded ?? []), next };
  }

  /**
   * Deliveries left SENDING by a worker that died (lease ran out) go back to the queue, due at
   * once; the cut-short attempt is logged as interrupted. The receiver may have got it: it
   * de-duplicates on webhook-id.
   */
  async recoverAbandoned(): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `WITH lost AS (
         UPDATE webhook_deliveries
            SET status = ${MOVE.retry.to}, next_attempt_at = now(), locked_until = NULL,
                last_status_code = NULL, last_error = $1::text
          WHERE id IN (SELECT id FROM webhook_deliveries
                        WHERE status IN (${MOVE.retry.from}) AND locked_until < now()
                        FOR UPDATE SKIP LOCKED)
          RETURNING id, company_id, attempts, attempt_started_at)
       INSERT INTO webhook_delivery_attempts (company_id, delivery_id, attempt, started_at, error)
       SELECT company_id, id, attempts, attempt_started_at, $1::text FROM lost
       RETURNING delivery_id::text AS id`,
      [INTERRUPTED_BY_CRASH],
    );
    return rows.length;
  }

  /**
   * Deliveries held by a switched-off webhook fail once their event is 24 hours old (the
   * younger ones of the same campaign are made due when it is switched on again).
   */
  async failExpiredHeld(): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `UPDATE webhook_deliveries d
          SET status = ${MOVE.expire.to}, finished_at = now(), last_error = $1
        WHERE d.status IN (${MOVE.expire.from}) AND d.created_at < now() - interval '24 hours'
          AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND NOT w.is_active)
        RETURNING d.id::text AS id`,
      [HELD_EXPIRED_ERROR],
    );
    return rows.length;
  }

  /**
   * For the metrics: PENDING deliveries due now whose webhook is on, counted up to `cap` over
   * the due index (those waiting for an earlier event of their campaign are not due).
   */
  countDue(cap: number): Promise<number> {
    return countUpTo(
      this.dataSource,
      `SELECT 1 FROM webhook_deliveries d
        WHERE d.status = 'PENDING' AND d.next_attempt_at <= now()
          AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.is_active)`,
      cap,
    );
  }

  /**
   * Milliseconds until the next retry falls due or a lease runs out (null: nothing waits).
   * Deliveries already due but waiting for an earlier event of their campaign are not
   * counted: the attempt they wait for wakes the worker when it ends.
   */
  async msUntilNextDue(): Promise<number | null> {
    const ms = await queryMilliseconds(
      this.dataSource,
      `SELECT extract(epoch FROM least(
                (SELECT min(next_attempt_at) FROM webhook_deliveries
                  WHERE status = 'PENDING' AND next_attempt_at > now()
                    AND next_attempt_at < 'infinity'),
                (SELECT min(locked_until) FROM webhook_deliveries WHERE status = 'SENDING')
              ) - now()) * 1000 AS ms`,
    );
    return ms === null ? null : Math.max(0, ms);
  }

  /** After the webhook was edited (new URL, switched on): waiting retries are due at once. */
  async makePendingDueNow(companyId: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now()
        WHERE company_id = $1 AND status = 'PENDING'
          AND next_attempt_at > now() AND next_attempt_at < 'infinity'`,
      [companyId],
    );
    await this.promoteWaiting({ companyId });
  }

  /**
   * Makes due the deliveries that wait ('infinity') although nothing before them in their
   * campaign is unfinished. The worker hands over to the next delivery when it finishes one;
   * this catches the rare miss, when an event's transaction saw its predecessor unfinished
   * while a worker was finishing it (each saw the other's work uncommitted), and what a
   * switched-off webhook held. `recentOnly`: deliveries created in the last minutes (the race
   * can only strike at creation), which keeps the frequent check cheap.
   */
  async promoteWaiting(scope: { recentOnly?: boolean; companyId?: number } = {}): Promise<number> {
    const conditions = [`d.status = 'PENDING'`, `d.next_attempt_at = 'infinity'`];
    const params: unknown[] = [];
    if (scope.recentOnly) {
      conditions.push(`d.created_at > now() - interval '${RECENT_WAITING}'`);
    }
    if (scope.companyId !== undefined) {
      params.push(scope.companyId);
      conditions.push(`d.company_id = $${params.length}`);
    }
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `UPDATE webhook_deliveries d SET next_attempt_at = now()
        WHERE ${conditions.join(' AND ')}
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                           WHERE p.webhook_id = d.webhook_id AND p.campaign_id = d.campaign_id
                             AND p.outbox_event_id < d.outbox_event_id
                             AND p.status IN ('PENDING', 'SENDING'))
        RETURNING d.id::text AS id`,
      params,
    );
    return rows.length;
  }

  async list(
    companyId: number,
    filter: DeliveryFilter,
  ): Promise<{ items: DeliveryRow[]; total: number }> {
    const conditions = ['company_id = $1'];
    const params: unknown[] = [companyId];
    if (filter.status) {
      params.push(filter.status);
      conditions.push(`status = $${params.length}`);
    }
    if (filter.campaignId !== undefined) {
      params.push(filter.campaignId);
      conditions.push(`campaign_id = $${params.length}`);
    }
    const where = conditions.join(' AND ');
    const [items, count] = await Promise.all([
      queryRows<DeliveryRow>(
        this.dataSource,
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where}
          ORDER BY webhook_deliveries.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, filter.size, filter.page * filter.size],
      ),
      queryRows<{ total: number }>(
        this.dataSource,
        `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${where}`,
        params,
      ),
    ]);
    return { items, total: count[0].total };
  }

  async findOne(companyId: number, id: string): Promise<DeliveryRow | null> {
    const rows = await queryRows<DeliveryRow>(
      this.dataSource,
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE company_id = $1 AND id = $2`,
      [companyId, id],
    );
    return rows[0] ?? null;
  }

  attempts(companyId: number, deliveryId: string): Promise<AttemptRow[]> {
    return queryRows<AttemptRow>(
      this.dataSource,
      `SELECT attempt, started_at AS "startedAt", duration_ms AS "durationMs",
              status_code AS "statusCode", error
         FROM webhook_delivery_attempts
        WHERE company_id = $1 AND delivery_id = $2
        ORDER BY attempt, id`,
      [companyId, deliveryId],
    );
  }
}
