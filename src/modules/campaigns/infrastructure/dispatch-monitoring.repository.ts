import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { countUpTo, queryPrepared, queryRows } from '../../../database/query-rows';
import {
  campaignPauseEndsSql,
  INSTANCE_DUE_AT,
  INSTANCE_HAS_CAMPAIGNS,
} from '../../gateway/infrastructure/instance-pacing.sql';

/**
 * When campaign `d` of instance `p` may be claimed: after its own next send, its pause after
 * the instance's last message, the instance's hold, and a lease it has.
 */
const CAMPAIGN_CLAIMABLE_AT = `greatest(d.next_send_at, ${campaignPauseEndsSql('d', 'p')}, p.held_until,
  d.locked_until)`;

/** Due ACTIVE campaigns: nothing of their own, nor of their instance, keeps them waiting. */
const FROM_DUE_CAMPAIGNS = `
  FROM campaigns d JOIN instance_pacing p ON p.gateway_config_id = d.gateway_config_id
 WHERE d.status = 'ACTIVE' AND ${CAMPAIGN_CLAIMABLE_AT} <= now()`;

/** The engine as the health endpoint, the metrics and the dispatch loop's sleep see it. */
@Injectable()
export class DispatchMonitoringRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** For the health endpoint: how many campaigns are due and how late the most overdue one is. */
  async backlog(): Promise<{ due: number; lagSeconds: number }> {
    const rows = await queryRows<{ due: number; lag: number | null }>(
      this.dataSource,
      `SELECT count(*)::int AS due,
              extract(epoch FROM now() - min(${CAMPAIGN_CLAIMABLE_AT}))::float AS lag
         ${FROM_DUE_CAMPAIGNS}`,
    );
    return { due: rows[0].due, lagSeconds: Math.max(0, Math.round((rows[0].lag ?? 0) * 10) / 10) };
  }

  /** For the metrics: due ACTIVE campaigns, counted up to `cap`. */
  countDue(cap: number): Promise<number> {
    return countUpTo(this.dataSource, `SELECT 1 ${FROM_DUE_CAMPAIGNS}`, cap);
  }

  /**
   * Milliseconds until an instance is due (its earliest campaign past its own wait and its
   * pause, nobody holding it), or a scheduled start is due; null: none. One read of the due
   * index's first entry: a due instance whose campaign the last claim could not take (leased,
   * a worker's own send still in flight) answers "now", and the loop's shortest wait between
   * claims (DispatchWorker) keeps that from spinning.
   */
  async msUntilNextDue(): Promise<number | null> {
    const rows = await queryPrepared<{ ms: number | null }>(
      this.dataSource,
      'dispatch_ms_until_next_due',
      `SELECT extract(epoch FROM (least(
                (SELECT ${INSTANCE_DUE_AT} FROM instance_pacing p WHERE ${INSTANCE_HAS_CAMPAIGNS}
                  ORDER BY ${INSTANCE_DUE_AT} LIMIT 1),
                (SELECT min(scheduled_for) FROM campaigns WHERE status = 'SCHEDULED')) - now())) * 1000 AS ms`,
      [],
    );
    return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
  }
}
