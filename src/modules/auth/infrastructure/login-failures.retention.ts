import { retentionPolicy } from '../../../common/retention/retention-policies';

/** Failed logins after RETENTION_LOGIN_FAILURES_DAYS (the lock looks at the last 15 minutes). */
export const loginFailuresRetention = retentionPolicy((config) => ({
  name: 'login failures',
  table: 'login_failures',
  key: 'id',
  expired: `failed_at < now() - $1::interval`,
  days: config.retentionDays.loginFailures,
}));
