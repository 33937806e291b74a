export interface CampaignCounts {
  totalContacts: number;
  sentContacts: number;
  failedContacts: number;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

export function pendingOf(c: CampaignCounts): number {
  return Math.max(0, c.totalContacts - c.sentContacts - c.failedContacts);
}

/** Share of contacts processed (sent or failed), 0 to 100. */
export function progressPercentage(c: CampaignCounts): number {
  return c.totalContacts === 0
    ? 0
    : round2(((c.sentContacts + c.failedContacts) / c.totalContacts) * 100);
}

/** Share of processed contacts that were sent. */
export function successRate(c: CampaignCounts): number {
  const processed = c.sentContacts + c.failedContacts;
  return processed === 0 ? 0 : round2((c.sentContacts / processed) * 100);
}

/** Every contact has its final outcome (sent or failed): the campaign can complete. */
export function allProcessed(c: CampaignCounts): boolean {
  return c.sentContacts + c.failedContacts >= c.totalContacts;
}

/** No contact has an outcome yet: the campaign's first send is under way. */
export function isFirstSend(c: CampaignCounts): boolean {
  return c.sentContacts === 0 && c.failedContacts === 0;
}

/** The 10 % milestone reached (0 to 10): campaign.progress fires once for each step passed. */
export function progressStepOf(c: CampaignCounts): number {
  return c.totalContacts === 0
    ? 10
    : Math.floor(((c.sentContacts + c.failedContacts) * 10) / c.totalContacts);
}

/** `HH:mm:ss`, hours may exceed 24. */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  return [hours, minutes, seconds].map((n) => String(n).padStart(2, '0')).join(':');
}

/** Remaining contacts times the mean pause, from now. */
export function estimatedCompletion(
  c: CampaignCounts & { minInterval: number; maxInterval: number },
  from: Date,
): Date | null {
  const pending = pendingOf(c);
  if (pending === 0) {
    return null;
  }
  const meanSeconds = (c.minInterval + c.maxInterval) / 2;
  return new Date(from.getTime() + pending * meanSeconds * 1000);
}
