import { TransitionTable } from '../../../common/state/transition-table';
import type { RunStatus } from './automation-rules';

/**
 * How a run is born: `start` opens one that sends (RUNNING); `miss` records a scheduled time
 * the service was down for (SKIPPED); `refuse` records a run that could not start (FAILED).
 */
export const AUTOMATION_RUN_OPENINGS = {
  start: 'RUNNING',
  miss: 'SKIPPED',
  refuse: 'FAILED',
} as const satisfies Record<string, RunStatus>;

export type AutomationRunAction =
  /** Every contact of its campaign was settled, or there was nobody to send to. */
  | 'complete'
  /** Its campaign failed or was cancelled. */
  | 'fail';

/** The life of a run after it opened: only a RUNNING run ends, once. */
export const AUTOMATION_RUN_LIFECYCLE = new TransitionTable<RunStatus, AutomationRunAction>(
  'AUTOMATION_RUN',
  {
    complete: { RUNNING: 'COMPLETED' },
    fail: { RUNNING: 'FAILED' },
  },
);

/** How a run's campaign ended decides the run's move. */
export function runEndingOf(campaignFailureReason: string | null): AutomationRunAction {
  return campaignFailureReason ? 'fail' : 'complete';
}

/** A run as the API shows it. */
export interface AutomationRunRow {
  id: string;
  automationId: number;
  status: RunStatus;
  trigger: string;
  scheduledFor: Date | null;
  startedAt: Date;
  finishedAt: Date | null;
  matchedRecords: number;
  sent: number;
  failed: number;
  skippedByDedup: number;
  skippedByBlockList: number;
  skippedByLimit: number;
  error: string | null;
  /** From the run's campaign: messages delivered and read (receipts, when tracked). */
  delivered: number;
  read: number;
  replied: number;
}
