/**
 * The events a webhook can subscribe to; a new campaign event must be added here (the webhooks
 * service fails to compile until it is).
 */
export const WEBHOOK_EVENTS = [
  'campaign.started',
  'campaign.progress',
  'campaign.completed',
  'campaign.failed',
  'campaign.paused',
  'campaign.retried',
  'campaign.sender_lost',
  'contact.opted_out',
  'contact.replied',
  'gateway.restricted',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Each event once, in the canonical order above (the order subscriptions are stored and shown in). */
export function normalizeEvents(events: readonly WebhookEvent[] | undefined): WebhookEvent[] {
  const chosen = new Set(events ?? WEBHOOK_EVENTS);
  return WEBHOOK_EVENTS.filter((event) => chosen.has(event));
}
