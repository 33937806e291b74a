import type { WaitingReason } from './campaign.entity';
import type { CampaignCounts } from './campaign-stats';

/** What the rules after a delivery read of the campaign, as its send began. */
export interface DeliveringCampaign extends CampaignCounts {
  /** Every `longPauseEvery` messages sent, the long pause instead of the pause. */
  longPauseEvery: number | null;
  /** The last 10 % milestone whose progress event was written (0 to 10). */
  progressStep: number;
}

/** The wait after a delivered message, as the delivery statement stores it. */
export interface PauseAfterDelivery {
  pauseSeconds: number;
  /** LONG_PAUSE when the long pause is taken, else null (the campaign waits for nothing known). */
  waitingReason: Extract<WaitingReason, 'LONG_PAUSE'> | null;
}

/**
 * Whether the message being sent is the one the long pause follows: the campaign had sent
 * `sentContacts` when its send began, and this one makes the count a multiple of the setting.
 */
export function longPauseFollows(campaign: DeliveringCampaign): boolean {
  return (
    campaign.longPauseEvery !== null && (campaign.sentContacts + 1) % campaign.longPauseEvery === 0
  );
}

/** The campaign's pause after this message: the long one when it is due, else its own. */
export function pauseAfterDelivery(
  campaign: DeliveringCampaign,
  pauses: { pauseSeconds: number; longPauseSeconds: number },
): PauseAfterDelivery {
  return longPauseFollows(campaign)
    ? { pauseSeconds: pauses.longPauseSeconds, waitingReason: 'LONG_PAUSE' }
    : { pauseSeconds: pauses.pauseSeconds, waitingReason: null };
}

/**
 * The processed count (sent + failed) at which the campaign's next progress event, or its
 * completion, is due: the smallest count whose 10 % step passes `progressStep`. Until a
 * delivery reaches it, the delivery statement may end the turn on its own; from it on, the
 * lease stays for the transaction that writes the events.
 */
export function milestoneCount(campaign: DeliveringCampaign): number {
  const total = campaign.totalContacts;
  return Math.min(total, Math.ceil(((campaign.progressStep + 1) * total) / 10));
}
