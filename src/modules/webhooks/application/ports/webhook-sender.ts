import type { AttemptResult, ClaimedDelivery } from '../../domain/webhook-delivery';
/**
 * One signed POST of a delivery (Standard Webhooks): webhook-id is the event's (the same on
 * every attempt), webhook-timestamp the attempt's time in Unix seconds, webhook-signature one
 * `v1,` signature per live secret. It goes through the outbound client, so the target check
 * (link-local and metadata always refused, private ranges with OUTBOUND_DENY_PRIVATE=true),
 * the time budget and the no-redirect rule hold for every attempt, not only at configuration.
 */
export abstract class WebhookSender {
  abstract send(
    delivery: ClaimedDelivery,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<AttemptResult>;
}
