import type { CampaignEventType } from '../../campaigns/domain/campaign-events';

/** The events a webhook can subscribe to; a new campaign event must be added here. */
export const WEBHOOK_EVENTS = [
  'campaign.started',
  'campaign.progress',
  'campaign.completed',
  'campaign.failed',
  'campaign.paused',
  'contact.opted_out',
] as const satisfies readonly (CampaignEventType | 'contact.opted_out')[];

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Each event once, in the canonical order above (the order subscriptions are stored and shown in). */
export function normalizeEvents(events: readonly WebhookEvent[] | undefined): WebhookEvent[] {
  const chosen = new Set(events ?? WEBHOOK_EVENTS);
  return WEBHOOK_EVENTS.filter((event) => chosen.has(event));
}
