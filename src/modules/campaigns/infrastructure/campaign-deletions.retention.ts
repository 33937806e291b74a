import { retentionPolicy } from '../../../common/retention/retention-policies';

/**
 * How long a deletion's row outlives its last contact: what reads it looks back an hour at most
 * (the hourly creation limit), so a week keeps it well past that and lets one see what went.
 */
const KEPT_DAYS = 7;

/** Deletions whose contacts are all gone, a week after they were asked for. */
export const campaignDeletionsRetention = retentionPolicy(() => ({
  name: 'campaign deletions',
  table: 'campaign_deletions',
  key: 'campaign_id',
  expired: `purged_at IS NOT NULL AND deleted_at < now() - $1::interval`,
  days: KEPT_DAYS,
}));
