import { retentionPolicy } from '../../../common/retention/retention-policies';
import { NOTICE_LIFECYCLE } from '../domain/notice-status';

/** Sent or failed notices after RETENTION_NOTICES_DAYS; pending ones stay. */
export const noticesRetention = retentionPolicy((config) => ({
  name: 'notices',
  table: 'notices',
  key: 'id',
  expired: `status IN (${NOTICE_LIFECYCLE.finalSql()}) AND created_at < now() - $1::interval`,
  days: config.retentionDays.notices,
}));
