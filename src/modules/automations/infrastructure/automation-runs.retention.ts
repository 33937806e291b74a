import { retentionPolicy } from '../../../common/retention/retention-policies';
import { AUTOMATION_RUN_LIFECYCLE } from '../domain/automation-run';

/**
 * Finished runs after RETENTION_AUTOMATION_RUNS_DAYS. The sent-log that de-duplicates
 * (automation_sent_log) is not a run's detail and stays.
 */
export const automationRunsRetention = retentionPolicy((config) => ({
  name: 'automation runs',
  table: 'automation_runs',
  key: 'id',
  expired: `status IN (${AUTOMATION_RUN_LIFECYCLE.finalSql()}) AND started_at < now() - $1::interval`,
  days: config.retentionDays.automationRuns,
}));
