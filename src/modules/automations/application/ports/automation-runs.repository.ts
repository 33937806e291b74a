import type { EntityManager } from 'typeorm';
import type { AutomationRunAction, AUTOMATION_RUN_OPENINGS } from '../../domain/automation-run';
import type { AutomationRunRow } from './automations.repository';

export type RunTrigger = 'SCHEDULE' | 'MANUAL';

/** What a run's selection found, as its record keeps it. */
export interface RunSelection {
  matched: number;
  skippedByBlockList: number;
  skippedByDedup: number;
  skippedByLimit: number;
  campaignId: number;
}

/**
 * The runs of automations and their sent-log. Every status it writes comes from the run's
 * lifecycle (domain/automation-run.ts).
 */
export abstract class AutomationRunsRepository {
  /**
   * Opens a RUNNING run and stamps the automation's last run; null when one is already
   * running (the partial unique index on RUNNING runs, across instances).
   */
  abstract open(
    manager: EntityManager,
    run: {
      automationId: number;
      companyId: number;
      trigger: RunTrigger;
      scheduledFor: Date | null;
    },
    now: Date,
  ): Promise<string | null>;
  /** Records a run that never sent: missed (SKIPPED) or unable to start (FAILED). */
  abstract recordClosed(
    manager: EntityManager | null,
    run: { automationId: number; companyId: number; scheduledFor: Date | null },
    opening: Exclude<keyof typeof AUTOMATION_RUN_OPENINGS, 'start'>,
    error: string,
  ): Promise<void>;
  abstract recordSelection(
    manager: EntityManager,
    runId: string,
    selection: RunSelection,
  ): Promise<void>;
  /** Ends a RUNNING run; `withoutCampaign` when its campaign was discarded. */
  abstract end(
    manager: EntityManager,
    runId: string,
    action: AutomationRunAction,
    outcome: { sent: number; failed: number; error: string | null } | 'withoutCampaign',
  ): Promise<void>;
  /** A message of the run went out: the sent-log row de-duplication reads. */
  abstract logSent(manager: EntityManager, runId: string, phoneNumber: string): Promise<void>;
  abstract find(manager: EntityManager, runId: string): Promise<AutomationRunRow>;
}
