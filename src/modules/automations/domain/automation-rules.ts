export const DEDUP_STRATEGIES = ['NEVER', 'ONCE', 'COOLDOWN_DAYS'] as const;
export type DedupStrategy = (typeof DEDUP_STRATEGIES)[number];

export const FILTER_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'startsWith',
  'before',
  'after',
  'isEmpty',
  'isNotEmpty',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One condition on a column of the automation's database; conditions combine with AND. */
export interface AutomationFilter {
  /** The columnName. */
  filterId: string;
  value: string;
  operator: FilterOperator;
  /** Compare dates on month and day only (birthdays). */
  ignoreYear: boolean;
}

export const MESSAGE_KINDS = ['TEXT', 'MEDIA', 'AUDIO', 'POLL'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export interface AutomationMessage {
  type: MessageKind;
  message: string | null;
  mediaUrl: string | null;
  mediaType: 'image' | 'video' | 'document' | null;
  fileName: string | null;
  caption: string | null;
  pollData: { name: string; options: string[]; selectableCount: number } | null;
  /**
   * On a Cloud API configuration, the approved template sent instead of the message (its
   * parameters rendered per record); absent or null otherwise.
   */
  template?: AutomationTemplate | null;
}

/** An approved Cloud API template and its parameters (the campaigns' CampaignTemplate). */
export interface AutomationTemplate {
  name: string;
  language: string;
  bodyParameters: string[];
  headerMedia: { mediaType: 'image' | 'video' | 'document'; url: string } | null;
}

/** `value` of a filter that means "the run's date in the schedule's zone". */
export const TODAY = 'TODAY';

export const RUN_STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'SKIPPED'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** A service that was down at a scheduled time runs the missed occurrence only within this. */
export const MISSED_RUN_GRACE_MS = 6 * 60 * 60 * 1000;
