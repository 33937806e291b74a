import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryPrepared, queryRows } from '../../../database/query-rows';

/**
 * The due campaigns looked at when the loop asks when to look again: the earliest by
 * next_send_at, each with its instance's own wait. Any campaign past them is due no earlier
 * than the next one in that order, which bounds the answer without reading them all.
 */
const NEXT_DUE_LOOKED_AT = 256;

/** The engine as the health endpoint, the metrics and the dispatch loop's sleep see it. */
@Injectable()
export class DispatchMonitoringRepository {
  constructor(private readonly dataSource: DataSource) {}

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

  /**
   * Milliseconds until an ACTIVE campaign nobody holds may be claimed, or a scheduled start is
   * due (null: none): a campaign whose instance is still in its pause is due at the pause's end,
   * one whose instance another sender holds a second from now (that sender moves the instance's
   * campaigns when done), so that the loop sleeps instead of claiming nothing again and again.
   */
  async msUntilNextDue(): Promise<number | null> {
    const rows = await queryPrepared<{ ms: number | null }>(
      this.dataSource,
      'dispatch_ms_until_next_due',
      `WITH unleased AS (
         SELECT gateway_config_id, next_send_at, min_interval FROM campaigns
          WHERE status = 'ACTIVE' AND (locked_until IS NULL OR locked_until < now())
          ORDER BY next_send_at LIMIT $1 + 1),
       first AS (SELECT * FROM unleased ORDER BY next_send_at LIMIT $1)
       SELECT extract(epoch FROM (least(
                (SELECT min(greatest(f.next_send_at,
                                     p.last_message_at + make_interval(secs => f.min_interval),
                                     CASE WHEN p.held_until >= now() THEN now() + interval '1 second' END))
                   FROM first f LEFT JOIN instance_pacing p ON p.gateway_config_id = f.gateway_config_id),
                (SELECT max(next_send_at) FROM unleased HAVING count(*) > $1),
                (SELECT min(scheduled_for) FROM campaigns WHERE status = 'SCHEDULED')) - now())) * 1000 AS ms`,
      [NEXT_DUE_LOOKED_AT],
    );
    return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
  }
}
