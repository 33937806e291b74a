import { finishedRowsRetention } from '../../../common/retention/retention-policies';
import { AUTOMATION_RUN_LIFECYCLE } from '../domain/automation-run';

/**
 * Finished runs after RETENTION_AUTOMATION_RUNS_DAYS. The sent-log that de-duplicates
 * (automation_sent_log) is not a run's detail and stays.
 */
export const automationRunsRetention = finishedRowsRetention(AUTOMATION_RUN_LIFECYCLE, {
  name: 'automation runs',
  table: 'automation_runs',
  agedFrom: 'started_at',
  days: 'automationRuns',
});
