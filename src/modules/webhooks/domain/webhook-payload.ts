/** The fields of docs/API-RULES.md §9, in the order a reader expects them; extras follow. */
const LEADING_KEYS = ['event', 'campaignId', 'companyId', 'timestamp', 'stats'];
const LEADING_STATS_KEYS = ['total', 'sent', 'failed', 'pending', 'progressPercentage', 'duration'];

/**
 * The request body of a delivery: the outbox payload as JSON, keys in a fixed order (PostgreSQL's
 * jsonb does not keep the order they were written in). The same event always gives the same
 * bytes, so every attempt carries an identical body.
 */
export function webhookBody(payload: Record<string, unknown>): string {
  const ordered = reorder(payload, LEADING_KEYS);
  const stats = ordered.stats;
  if (stats && typeof stats === 'object' && !Array.isArray(stats)) {
    ordered.stats = reorder(stats as Record<string, unknown>, LEADING_STATS_KEYS);
  }
  return JSON.stringify(ordered);
}

function reorder(source: Record<string, unknown>, leading: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of leading) {
    if (key in source) {
      result[key] = source[key];
    }
  }
  for (const key of Object.keys(source).sort()) {
    if (!(key in result)) {
      result[key] = source[key];
    }
  }
  return result;
}

/** The webhook-id of an event: the same for every attempt, so receivers can de-duplicate on it. */
export function webhookMessageId(outboxEventId: string): string {
  return `evt_${outboxEventId}`;
}
