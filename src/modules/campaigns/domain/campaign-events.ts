import { CampaignCounts, formatDuration, pendingOf, progressPercentage } from './campaign-stats';

export type CampaignEventType =
  | 'campaign.started'
  | 'campaign.progress'
  | 'campaign.completed'
  | 'campaign.failed'
  | 'campaign.paused'
  | 'campaign.retried'
  | 'campaign.sender_lost';

export interface CampaignEvent {
  companyId: number;
  campaignId: number;
  eventType: CampaignEventType;
  payload: Record<string, unknown>;
}

interface CampaignRef {
  id: number;
  companyId: number;
  startedAt: Date | null;
}

function event(
  eventType: CampaignEventType,
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
  extraStats: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): CampaignEvent {
  return {
    companyId: campaign.companyId,
    campaignId: campaign.id,
    eventType,
    payload: {
      event: eventType,
      campaignId: campaign.id,
      companyId: campaign.companyId,
      timestamp: now.toISOString(),
      stats: {
        total: counts.totalContacts,
        sent: counts.sentContacts,
        failed: counts.failedContacts,
        pending: pendingOf(counts),
        progressPercentage: progressPercentage(counts),
        ...extraStats,
      },
      ...extra,
    },
  };
}

export function startedEvent(
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
): CampaignEvent {
  return event('campaign.started', campaign, counts, now);
}

/** One event per 10 % step passed since `fromStep`, in order; `milestone` names the step. */
export function progressEvents(
  campaign: CampaignRef,
  counts: CampaignCounts,
  fromStep: number,
  toStep: number,
  now: Date,
): CampaignEvent[] {
  const events: CampaignEvent[] = [];
  for (let step = fromStep + 1; step <= Math.min(toStep, 10); step += 1) {
    events.push(
      event('campaign.progress', campaign, counts, now, receiptCounts(counts), {
        milestone: step * 10,
      }),
    );
  }
  return events;
}

export function completedEvent(
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
): CampaignEvent {
  const duration = formatDuration(now.getTime() - (campaign.startedAt ?? now).getTime());
  return event('campaign.completed', campaign, counts, now, { duration, ...receiptCounts(counts) });
}

export function failedEvent(
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
  reason: string,
): CampaignEvent {
  return event('campaign.failed', campaign, counts, now, {}, { reason });
}

/** The engine paused the campaign (our own repeated errors, a deactivated company); a person resumes it. */
export function pausedEvent(
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
  reason: string,
): CampaignEvent {
  return event('campaign.paused', campaign, counts, now, {}, { reason });
}

/**
 * A person sent a finished campaign's failures again: it is ACTIVE once more, like a start,
 * with the counters after the move and how many FAILED contacts went back.
 */
export function retriedEvent(
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
  retriedContacts: number,
): CampaignEvent {
  return event('campaign.retried', campaign, counts, now, {}, { retriedContacts });
}

/**
 * A number of the campaign's pool can no longer send (logged out, credentials refused, locked…):
 * its contacts still PENDING went to the others (`movedContacts`); `sendersLeft` numbers go on.
 */
export function senderLostEvent(
  campaign: CampaignRef,
  counts: CampaignCounts,
  now: Date,
  lost: {
    gatewayConfigId: number;
    instance: string;
    reason: string;
    movedContacts: number;
    sendersLeft: number;
  },
): CampaignEvent {
  const { gatewayConfigId, instance, ...rest } = lost;
  return event(
    'campaign.sender_lost',
    campaign,
    counts,
    now,
    {},
    {
      sender: { gatewayConfigId, instance },
      ...rest,
    },
  );
}

/**
 * Delivered, read and replied counts (receipts and replies, with delivery tracking), on the progress and completed
 * events, when the counts carry them.
 */
function receiptCounts(counts: CampaignCounts): Record<string, number> {
  const { deliveredContacts, readContacts, repliedContacts } = counts as CampaignCounts & {
    deliveredContacts?: number;
    readContacts?: number;
    repliedContacts?: number;
  };
  return deliveredContacts === undefined
    ? {}
    : { delivered: deliveredContacts, read: readContacts ?? 0, replied: repliedContacts ?? 0 };
}
