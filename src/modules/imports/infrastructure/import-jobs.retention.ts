import { finishedRowsRetention } from '../../../common/retention/retention-policies';
import { IMPORT_JOB_LIFECYCLE } from '../domain/import-job.entity';

/** Finished push-import jobs after RETENTION_IMPORT_JOBS_DAYS; open ones stay. */
export const importJobsRetention = finishedRowsRetention(IMPORT_JOB_LIFECYCLE, {
  name: 'import jobs',
  table: 'contact_import_jobs',
  agedFrom: 'finished_at',
  days: 'importJobs',
});
