import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { countUpTo, queryPrepared, queryRows } from '../../../database/query-rows';

/**
 * The campaigns looked at when the loop asks when to look again: the earliest by next_send_at
 * of those nobody holds, on instances nobody holds, each with its instance's pause. Any
 * campaign past them is due no earlier than the next one in that order, which bounds the
 * answer without reading them all.
 */
const NEXT_DUE_LOOKED_AT = 64;

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
  countDue(cap: number): Promise<number> {
    return countUpTo(
      this.dataSource,
      `SELECT 1 FROM campaigns WHERE status = 'ACTIVE' AND next_send_at <= now()`,
      cap,
    );
  }

  /**
   * Milliseconds until an ACTIVE campaign nobody holds may be claimed, or a scheduled start is
   * due (null: none). A campaign whose instance is still in its pause is due when the pause
   * ends, so that the loop sleeps instead of claiming nothing again and again; one whose
   * instance is held waits for its holder (the loop wakes when a send of its own ends, and
   * sleeps no longer than its idle time anyway).
   */
  async msUntilNextDue(): Promise<number | null> {
    const rows = await queryPrepared<{ ms: number | null }>(
      this.dataSource,
      'dispatch_ms_until_next_due',
      `WITH waiting AS (
         SELECT greatest(d.next_send_at, p.last_message_at + make_interval(secs => d.min_interval)) AS at,
                d.next_send_at, row_number() OVER (ORDER BY d.next_send_at) AS n
           FROM (SELECT next_send_at, gateway_config_id, min_interval FROM campaigns d
                  WHERE status = 'ACTIVE' AND (locked_until IS NULL OR locked_until < now())
                    AND NOT EXISTS (SELECT 1 FROM instance_pacing h
                                     WHERE h.gateway_config_id = d.gateway_config_id AND h.held_until >= now())
                  ORDER BY next_send_at LIMIT $1 + 1) d
           LEFT JOIN instance_pacing p ON p.gateway_config_id = d.gateway_config_id)
       SELECT extract(epoch FROM (least(
                (SELECT min(at) FILTER (WHERE n <= $1) FROM waiting),
                (SELECT min(next_send_at) FILTER (WHERE n > $1) FROM waiting),
                (SELECT min(scheduled_for) FROM campaigns WHERE status = 'SCHEDULED')) - now())) * 1000 AS ms`,
      [NEXT_DUE_LOOKED_AT],
    );
    return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
  }
}
