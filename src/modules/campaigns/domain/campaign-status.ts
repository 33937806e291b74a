import { TransitionTable } from '../../../common/state/transition-table';

export const CAMPAIGN_STATUSES = [
  'DRAFT',
  'SCHEDULED',
  'ACTIVE',
  'PAUSED',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_TYPES = ['TEXT', 'MEDIA', 'POLL'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

export type CampaignAction =
  | 'start'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'complete'
  | 'fail'
  | 'retry'
  | 'edit'
  | 'launch'
  | 'schedule';

/**
 * The one transition table (docs/API-RULES.md §4). `start` is a scheduled
 * campaign's time coming; `complete` and `fail` are the engine's moves; `retry` is a person
 * sending a finished campaign's failed contacts again (the entity also checks its age).
 * `edit` changes what a campaign not sent yet will send, keeping its status; `launch` sends a
 * draft now and `schedule` launches one that has a time (docs/API-RULES.md, "Drafts: edit and
 * launch").
 */
export const CAMPAIGN_TRANSITIONS: Record<
  CampaignAction,
  Partial<Record<CampaignStatus, CampaignStatus>>
> = {
  start: { SCHEDULED: 'ACTIVE' },
  pause: { ACTIVE: 'PAUSED' },
  resume: { PAUSED: 'ACTIVE' },
  cancel: { DRAFT: 'CANCELLED', SCHEDULED: 'CANCELLED', ACTIVE: 'CANCELLED', PAUSED: 'CANCELLED' },
  complete: { ACTIVE: 'COMPLETED' },
  fail: { ACTIVE: 'FAILED', PAUSED: 'FAILED' },
  retry: { COMPLETED: 'ACTIVE', FAILED: 'ACTIVE' },
  edit: { DRAFT: 'DRAFT', SCHEDULED: 'SCHEDULED' },
  launch: { DRAFT: 'ACTIVE' },
  schedule: { DRAFT: 'SCHEDULED' },
};

export const CAMPAIGN_LIFECYCLE = new TransitionTable<CampaignStatus, CampaignAction>(
  'CAMPAIGN',
  CAMPAIGN_TRANSITIONS,
);

export function nextCampaignStatus(
  from: CampaignStatus,
  action: CampaignAction,
): CampaignStatus | undefined {
  return CAMPAIGN_LIFECYCLE.next(from, action);
}

/** The statuses an action may start from, for the engine's set-based SQL guards. */
export function statusesAllowing(action: CampaignAction): CampaignStatus[] {
  return CAMPAIGN_LIFECYCLE.statusesAllowing(action);
}
