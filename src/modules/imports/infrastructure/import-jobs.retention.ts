import { retentionPolicy } from '../../../common/retention/retention-policies';
import { IMPORT_JOB_LIFECYCLE } from '../domain/import-job.entity';

/** Finished push-import jobs after RETENTION_IMPORT_JOBS_DAYS; open ones stay. */
export const importJobsRetention = retentionPolicy((config) => ({
  name: 'import jobs',
  table: 'contact_import_jobs',
  key: 'id',
  expired: `status IN (${IMPORT_JOB_LIFECYCLE.finalSql()}) AND finished_at < now() - $1::interval`,
  days: config.retentionDays.importJobs,
}));
