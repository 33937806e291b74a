import { Injectable } from '@nestjs/common';
import {
  costOf,
  type MessageCost,
  type MessagePrices,
} from '../../../common/messaging/message-prices';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import { CompanySession } from '../../../common/session/company-session';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import {
  daysOf,
  emptyFunnel,
  type FunnelCounts,
  instantsOf,
  reportDays,
  type SendingSpan,
  sendingSpanOf,
  sumFunnels,
} from '../domain/campaign-report';
import type { Campaign } from '../domain/campaign.entity';
import {
  CampaignReportsRepository,
  type DayFunnel,
  type SenderFunnel,
} from '../infrastructure/campaign-reports.repository';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';

export interface CampaignReport {
  campaign: Campaign;
  funnel: FunnelCounts;
  senders: SenderFunnel[];
  hours: Array<{ hour: string; sent: number }>;
  firstSendAt: Date | null;
  lastSendAt: Date | null;
  span: SendingSpan;
  /** Its Cloud API messages Meta charged for, at the company's prices. */
  cost: MessageCost;
}

type PricedDay = DayFunnel & { cost: MessageCost };

export interface CompanyReport {
  from: string;
  to: string;
  total: PricedDay;
  /** Every day of the range, in order, with zeros where nothing happened. */
  days: Array<PricedDay & { day: string }>;
}

/** A campaign's report and the company's per day (docs/API-RULES.md, "Reports and the campaign list"). */
@Injectable()
export class CampaignReportsService {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly reports: CampaignReportsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly settings: CompanySettingsService,
  ) {}

  private async pricesOf(session: CompanySession): Promise<MessagePrices | null> {
    return (await this.settings.get(session.companyId)).messagePrices;
  }

  async campaignReport(session: CompanySession, id: number): Promise<CampaignReport> {
    const campaign = await this.campaigns.findOwnedOrFail(session.companyId, id);
    const { senders, hours } = await this.reports.campaignReport(
      session.companyId,
      campaign.id,
      this.config.appTimezone,
    );
    const funnel = sumFunnels(senders);
    const firstSendAt = earliest(senders.map((sender) => sender.firstSendAt));
    const lastSendAt = latest(senders.map((sender) => sender.lastSendAt));
    const completedAt = campaign.status === 'COMPLETED' ? campaign.completedAt : null;
    return {
      campaign,
      funnel,
      senders,
      hours,
      firstSendAt,
      lastSendAt,
      span: sendingSpanOf(funnel.sent, firstSendAt, lastSendAt, completedAt),
      cost: costOf(funnel.billable, await this.pricesOf(session)),
    };
  }

  async companyReport(
    session: CompanySession,
    from: string | undefined,
    to: string | undefined,
  ): Promise<CompanyReport> {
    const zone = this.config.appTimezone;
    const range = reportDays(from, to, zone, this.clock.now());
    const { start, end } = instantsOf(range.from, range.to);
    const { days, total } = await this.reports.dailyReport(session.companyId, start, end, zone);
    const byDay = new Map(days.map((day) => [day.day, day]));
    const prices = await this.pricesOf(session);
    const priced = <T extends DayFunnel>(day: T): T & { cost: MessageCost } => ({
      ...day,
      cost: costOf(day.billable, prices),
    });
    return {
      from: range.from.toISODate() as string,
      to: range.to.toISODate() as string,
      total: priced(total),
      days: daysOf(range.from, range.to).map((day) =>
        priced({
          ...(byDay.get(day) ?? { ...emptyFunnel(), campaigns: 0, automationRuns: 0 }),
          day,
        }),
      ),
    };
  }
}

function earliest(dates: Array<Date | null>): Date | null {
  const known = dates.filter((date): date is Date => date !== null);
  return known.length === 0 ? null : new Date(Math.min(...known.map((date) => date.getTime())));
}

function latest(dates: Array<Date | null>): Date | null {
  const known = dates.filter((date): date is Date => date !== null);
  return known.length === 0 ? null : new Date(Math.max(...known.map((date) => date.getTime())));
}
