import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryPrepared, queryRows } from '../../../database/query-rows';
import { AppConfig } from '../../../config/app-config.service';
import { holderIsGoneSql } from '../../../common/work/worker-liveness';
import {
  InstanceTurnEnd,
  PauseRange,
  InstanceUsage,
  InstancePacing,
  SlotAnswer,
} from '../application/ports/instance-pacing';
import {
  dayLimitSql,
  releaseHoldSql,
  RECIPIENT_CAP_SQL,
  sentTodaySql,
  TIER_ROOM_AT_SQL,
  TIER_ROOM_SQL,
  todaySql,
  warmupLimitSql,
} from './instance-pacing.sql';

interface HoldRow {
  held: boolean;
  quota: number | null;
  capped: boolean;
  busyUntil: Date;
  /** When a capped instance has room again: its next day, or room in its tier. */
  roomAt: Date;
}

/**
 * instance_pacing: one row per configuration, created on its first hold. Each statement is one
 * round trip on its own (no transaction around it), like the engine's hot statements.
 */
@Injectable()
export class PgInstancePacing implements InstancePacing {
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {}

  async hold(
    gatewayConfigId: number,
    holder: string,
    holdSeconds: number,
    pause: PauseRange,
  ): Promise<SlotAnswer> {
    let row = await this.tryHold(gatewayConfigId, holder, holdSeconds, pause);
    if (!row) {
      await this.dataSource.query(
        `INSERT INTO instance_pacing (gateway_config_id, company_id)
         SELECT id, company_id FROM gateway_configs WHERE id = $1 ON CONFLICT DO NOTHING`,
        [gatewayConfigId],
      );
      row = await this.tryHold(gatewayConfigId, holder, holdSeconds, pause);
    }
    if (!row || row.held) {
      // No row: the configuration is gone; the send finds that out and says so.
      return { held: true, quota: row?.quota ?? null };
    }
    return row.capped
      ? { held: false, reason: 'DAILY_LIMIT', retryAt: row.roomAt }
      : { held: false, reason: 'BUSY', retryAt: row.busyUntil };
  }

  private async tryHold(
    gatewayConfigId: number,
    holder: string,
    holdSeconds: number,
    pause: PauseRange,
  ): Promise<HoldRow | null> {
    const rows = await queryPrepared<HoldRow>(
      this.dataSource,
      'pacing_hold',
      `WITH cur AS (
         SELECT p.gateway_config_id,
                pause_ends_at(p.last_message_at, p.pause_draw, $5::int, $6::int) AS quiet_from,
                p.held_by, p.held_until,
                ${sentTodaySql('$4')} AS sent_today, ${dayLimitSql('$4')} AS day_limit,
                ${TIER_ROOM_SQL} AS tier_room,
                CASE WHEN ${RECIPIENT_CAP_SQL} IS NOT NULL THEN ${TIER_ROOM_AT_SQL} END AS tier_room_at
           FROM instance_pacing p JOIN gateway_configs g ON g.id = p.gateway_config_id
          WHERE p.gateway_config_id = $1
            FOR UPDATE OF p),
       held AS (
         UPDATE instance_pacing p SET held_by = $2, held_until = now() + make_interval(secs => $3)
           FROM cur
          WHERE p.gateway_config_id = cur.gateway_config_id
            AND cur.quiet_from <= now()
            AND (cur.held_until IS NULL OR cur.held_until < now())
            AND (cur.day_limit IS NULL OR cur.sent_today < cur.day_limit)
            AND (cur.tier_room IS NULL OR cur.tier_room > 0)
          RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM held) AS held,
              least(cur.day_limit - cur.sent_today, cur.tier_room) AS quota,
              coalesce(cur.sent_today >= cur.day_limit, false) OR coalesce(cur.tier_room <= 0, false) AS capped,
              CASE WHEN cur.quiet_from > now() THEN cur.quiet_from
                   -- Resting (Meta asked the number to slow down): until the rest ends.
                   WHEN cur.held_by IS NULL AND cur.held_until > now() THEN cur.held_until
                   -- Held by another sender: look again shortly.
                   ELSE now() + interval '1 second' END AS "busyUntil",
              CASE WHEN coalesce(cur.sent_today >= cur.day_limit, false)
                   THEN ((${todaySql('$4')} + 1)::timestamp AT TIME ZONE $4)
                   ELSE cur.tier_room_at END AS "roomAt"
         FROM cur`,
      [
        gatewayConfigId,
        holder,
        holdSeconds,
        this.config.appTimezone,
        pause.minSeconds,
        pause.maxSeconds,
      ],
    );
    return rows[0] ?? null;
  }

  async release(gatewayConfigId: number, holder: string, turn: InstanceTurnEnd): Promise<void> {
    await queryPrepared(
      this.dataSource,
      'pacing_release',
      `UPDATE instance_pacing p SET ${releaseHoldSql('$2', '$3', '$4', '$5::float', '$6::float')}
        WHERE gateway_config_id = $1`,
      [
        gatewayConfigId,
        holder,
        turn.sent,
        this.config.appTimezone,
        turn.pauseDraw ?? null,
        turn.restSeconds ?? null,
      ],
    );
  }

  async releaseHoldsOfGoneWorkers(): Promise<number> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `UPDATE instance_pacing SET held_by = NULL, held_until = NULL
        WHERE held_until >= now() AND held_by IS NOT NULL AND ${holderIsGoneSql('held_by')}
        RETURNING gateway_config_id AS id`,
    );
    return rows.length;
  }

  async usageOf(
    companyId: number,
    gatewayConfigIds: number[],
  ): Promise<Map<number, InstanceUsage>> {
    const tz = '$3';
    const rows = await queryRows<InstanceUsage & { gatewayConfigId: number }>(
      this.dataSource,
      `SELECT g.id AS "gatewayConfigId",
              ${todaySql(tz)}::text AS day,
              coalesce(${sentTodaySql(tz)}, 0) AS "messagesToday",
              g.daily_limit AS "dailyLimit",
              ${warmupLimitSql(tz)} AS "warmupLimitToday",
              ${dayLimitSql(tz)} AS "limitToday",
              ${RECIPIENT_CAP_SQL} AS "recipientCap",
              ${RECIPIENT_CAP_SQL} - ${TIER_ROOM_SQL} AS "recipientsLast24h",
              CASE WHEN g.warmup_start_per_day IS NOT NULL
                   THEN ${todaySql(tz)} - coalesce((p.first_send_at AT TIME ZONE ${tz})::date, ${todaySql(tz)}) + 1
              END AS "warmupDay",
              CASE WHEN p.last_message_at > '-infinity' THEN p.last_message_at END AS "lastMessageAt",
              p.first_send_at AS "firstSendAt"
         FROM gateway_configs g LEFT JOIN instance_pacing p ON p.gateway_config_id = g.id
        WHERE g.company_id = $1 AND g.id = ANY($2::int[])`,
      [companyId, gatewayConfigIds, this.config.appTimezone],
    );
    return new Map(rows.map(({ gatewayConfigId, ...usage }) => [gatewayConfigId, usage]));
  }
}
