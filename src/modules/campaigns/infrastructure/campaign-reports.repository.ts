import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { onReadPool, queryRows } from '../../../database/query-rows';
import {
  billableOf,
  emptyFunnel,
  failedByKindOf,
  type FunnelCounts,
} from '../domain/campaign-report';
import { CAMPAIGN_REPORT, DAILY_REPORT } from './campaign-reports.sql';

/** How an opt-out by reply is recorded on the block list (blocked_contacts.blocked_by). */
const OPT_OUT = 'OPT_OUT';

type FunnelRow = Omit<FunnelCounts, 'failedByKind' | 'billable'> & {
  failedByKind: Record<string, number>;
  billable: Record<string, number>;
};

/** One sending row of a campaign (its own, or one of a pool's numbers) and what it did. */
export interface SenderFunnel extends FunnelCounts {
  senderId: number;
  gatewayConfigId: number;
  instance: string;
  firstSendAt: Date | null;
  lastSendAt: Date | null;
}

export interface CampaignReportRows {
  senders: SenderFunnel[];
  /** Sends per local hour (`YYYY-MM-DDTHH:00:00`), in order; hours without sends are absent. */
  hours: Array<{ hour: string; sent: number }>;
}

/** One local day (`YYYY-MM-DD`), or the whole range when `day` is null. */
export interface DayFunnel extends FunnelCounts {
  day: string | null;
  campaigns: number;
  automationRuns: number;
}

/** The reports' figures, set-based over campaign_contacts, on the read pool. */
@Injectable()
export class CampaignReportsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The campaign's senders and hours (the caller checked that the company owns it). */
  async campaignReport(
    companyId: number,
    campaignId: number,
    timezone: string,
  ): Promise<CampaignReportRows> {
    const rows = await onReadPool(this.dataSource, (reader) =>
      queryRows<
        FunnelRow & {
          senderId: number | null;
          gatewayConfigId: number;
          instance: string;
          hour: string | null;
          firstSendAt: Date | null;
          lastSendAt: Date | null;
        }
      >(reader, CAMPAIGN_REPORT, [campaignId, timezone, companyId, OPT_OUT]),
    );
    const senders: SenderFunnel[] = [];
    const hours: CampaignReportRows['hours'] = [];
    for (const row of rows) {
      if (row.senderId !== null) {
        senders.push({ ...funnelOf(row), ...pick(row) });
      } else if (row.hour !== null) {
        hours.push({ hour: row.hour, sent: row.sent });
      }
    }
    return { senders, hours };
  }

  /**
   * The company's figures by local day for the outcomes between `start` and `end`: a row per
   * day with something, and the range's total.
   */
  async dailyReport(
    companyId: number,
    start: Date,
    end: Date,
    timezone: string,
  ): Promise<{ days: DayFunnel[]; total: DayFunnel }> {
    const rows = await onReadPool(this.dataSource, (reader) =>
      queryRows<FunnelRow & { day: string | null; campaigns: number; automationRuns: number }>(
        reader,
        DAILY_REPORT,
        [companyId, start, end, timezone, OPT_OUT],
      ),
    );
    const days = rows.map((row) => ({
      ...funnelOf(row),
      day: row.day,
      campaigns: row.campaigns,
      automationRuns: row.automationRuns,
    }));
    const total = days.find((day) => day.day === null) ?? {
      ...emptyFunnel(),
      day: null,
      campaigns: 0,
      automationRuns: 0,
    };
    return { days: days.filter((day) => day.day !== null), total };
  }
}

function funnelOf(row: FunnelRow): FunnelCounts {
  return {
    total: row.total,
    sent: row.sent,
    delivered: row.delivered,
    read: row.read,
    replied: row.replied,
    optedOut: row.optedOut,
    failed: row.failed,
    failedByKind: failedByKindOf(row.failedByKind),
    billable: billableOf(row.billable),
  };
}

function pick(row: {
  senderId: number | null;
  gatewayConfigId: number;
  instance: string;
  firstSendAt: Date | null;
  lastSendAt: Date | null;
}): Omit<SenderFunnel, keyof FunnelCounts> {
  return {
    senderId: row.senderId as number,
    gatewayConfigId: row.gatewayConfigId,
    instance: row.instance,
    firstSendAt: row.firstSendAt,
    lastSendAt: row.lastSendAt,
  };
}
