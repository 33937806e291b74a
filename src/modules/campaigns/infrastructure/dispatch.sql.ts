import { statusLiteral } from '../../../common/state/transition-table';
import { campaignPauseEndsSql } from '../../gateway/infrastructure/instance-pacing.sql';
import { DEFAULT_CLOUD_THROUGHPUT_PER_SECOND } from '../../gateway/domain/cloud-api-throughput';
import { CAMPAIGN_LIFECYCLE } from '../domain/campaign-status';
import {
  CAMPAIGN_CONTACT_LIFECYCLE,
  UNFINISHED_CONTACT_STATUSES,
} from '../domain/campaign-contact-status';

/** The engine's SQL fragments, shared by the dispatch repositories (claim, outcome, lease). */

/** When the campaign's pause after its instance's last message ends (see campaignPauseEndsSql). */
const PAUSE_ENDS = `(SELECT ${campaignPauseEndsSql('campaigns', 'p')} FROM instance_pacing p
   WHERE p.gateway_config_id = campaigns.gateway_config_id)`;

/** A campaign row as DispatchCampaign: what one send needs of it. */
export const CAMPAIGN_COLUMNS = `
  id, company_id AS "companyId", status, type, message_content AS "messageContent", media_url AS "mediaUrl",
  media_type AS "mediaType", file_name AS "fileName", caption, poll_data AS "pollData", template,
  gateway_config_id AS "gatewayConfigId", database_config_id AS "databaseConfigId",
  min_interval AS "minInterval", max_interval AS "maxInterval", notification_phone AS "notificationPhone",
  name, total_contacts AS "totalContacts", sent_contacts AS "sentContacts", failed_contacts AS "failedContacts",
  progress_step AS "progressStep", started_at AS "startedAt", disconnected_since AS "disconnectedSince",
  locked_by AS "lockedBy", automation_run_id AS "automationRunId", pool_id AS "poolId",
  long_pause_every AS "longPauseEvery", long_pause_min AS "longPauseMin", long_pause_max AS "longPauseMax",
  watched_sends AS "watchedSends",
  (SELECT auto_pause FROM companies WHERE companies.id = campaigns.company_id) AS "autoPause",
  greatest(0, extract(epoch FROM now() - greatest(next_send_at, ${PAUSE_ENDS})))::float AS "sendLagSeconds"`;

/**
 * Renews the lease of worker $2 on campaign $1 for $3 seconds, row-locking it (a pause or a
 * cancel committed before waits no more: it stops the send), and answers the campaign as
 * DispatchCampaign; no row when the lease is not that worker's. The first step of a send.
 */
export const RENEW_LEASE = `UPDATE campaigns SET locked_until = now() + make_interval(secs => $3)
   WHERE id = $1 AND locked_by = $2
   RETURNING ${CAMPAIGN_COLUMNS}`;

/** The counters a campaign's events and completion are written from. */
export const COUNTER_COLUMNS = `total_contacts AS "totalContacts", sent_contacts AS "sentContacts",
  failed_contacts AS "failedContacts", progress_step AS "progressStep", status,
  delivered_contacts AS "deliveredContacts", read_contacts AS "readContacts",
  replied_contacts AS "repliedContacts"`;

/** The campaign waits for its instance (see rescheduleAndRelease), as its row is before the update. */
export const WAITING_FOR_INSTANCE = `(disconnected_since IS NOT NULL
  AND waiting_reason IN ('INSTANCE_DISCONNECTED', 'INSTANCE_NOT_PAIRED'))`;
export const NEVER_PAIRED = `(disconnected_since IS NOT NULL AND waiting_reason = 'INSTANCE_NOT_PAIRED')`;

/**
 * Each contact move as the transition table has it, written into the SQL as literals (they
 * come from the table, never from input): the statement texts stay constant for the prepared
 * statements, and the planner can use the partial indexes on status, which a bound array
 * parameter would hide from it.
 */
export const MOVE = {
  take: CAMPAIGN_CONTACT_LIFECYCLE.sql('take'),
  deliver: CAMPAIGN_CONTACT_LIFECYCLE.sql('deliver'),
  fail: CAMPAIGN_CONTACT_LIFECYCLE.sql('fail'),
  requeue: CAMPAIGN_CONTACT_LIFECYCLE.sql('requeue'),
  doubt: CAMPAIGN_CONTACT_LIFECYCLE.sql('doubt'),
};
export const UNFINISHED = UNFINISHED_CONTACT_STATUSES.map(statusLiteral).join(', ');

/** The campaign moves the engine makes in SQL (the entity makes the others). */
export const CAMPAIGN_MOVE = {
  start: CAMPAIGN_LIFECYCLE.sql('start'),
  complete: CAMPAIGN_LIFECYCLE.sql('complete'),
  fail: CAMPAIGN_LIFECYCLE.sql('fail'),
  pause: CAMPAIGN_LIFECYCLE.sql('pause'),
  /** A pool's lost sender left with nothing to finish ends with its pool (sender-pools). */
  cancelLost: CAMPAIGN_LIFECYCLE.sql('cancel'),
};

/** Whether the contact row `c` is on its company's active block list, when the company uses one. */
export const CONTACT_IS_BLOCKED = `EXISTS (SELECT 1 FROM blocked_contacts b JOIN companies co ON co.id = b.company_id
                                     WHERE b.company_id = c.company_id AND b.phone_number = c.phone_number
                                       AND b.is_active AND co.blocked_contacts_enabled)`;

/** What a send needs of the contact row `c` it took, as TakenContactColumns. */
export const TAKEN_CONTACT_COLUMNS = `c.id AS "contactId", c.phone_number AS "contactPhoneNumber",
  c.name AS "contactName", c.retry_count AS "contactAttempts", ${CONTACT_IS_BLOCKED} AS "contactBlocked"`;

/** A contact row `c` marked SENDING (an attempt begins): the SET list of the take. */
export const TAKE_SET = `status = ${MOVE.take.to}, sending_started_at = now(), retry_count = retry_count + 1`;

/** Whether the campaign's company may send, read with the campaign. */
export const COMPANY_ACTIVE = `(SELECT is_active FROM companies WHERE companies.id = campaigns.company_id) AS "companyActive"`;

/**
 * The messages a second the campaign row's number may send: a Cloud API number's throughput
 * (its configuration's, or Meta's default); null for an Evolution instance, paced by pauses.
 */
export const THROUGHPUT_PER_SECOND = `(SELECT CASE WHEN g.provider = 'CLOUD_API'
       THEN coalesce(g.throughput_per_second, ${DEFAULT_CLOUD_THROUGHPUT_PER_SECOND}) END
  FROM gateway_configs g WHERE g.id = campaigns.gateway_config_id)`;
