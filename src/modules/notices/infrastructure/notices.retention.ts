import { finishedRowsRetention } from '../../../common/retention/retention-policies';
import { NOTICE_LIFECYCLE } from '../domain/notice-status';

/** Sent or failed notices after RETENTION_NOTICES_DAYS; pending ones stay. */
export const noticesRetention = finishedRowsRetention(NOTICE_LIFECYCLE, {
  name: 'notices',
  table: 'notices',
  agedFrom: 'created_at',
  days: 'notices',
});
