import { PRICED_CATEGORIES } from '../../../common/messaging/message-prices';
import { CONTACT_FAILURE_KINDS } from '../domain/contact-failure-kind';
import { SENDING_ROWS_OF } from './campaign-contacts.repository';
import { RECEIVED } from './contact-receipts.sql';

/**
 * The company's numbers that opted out by reply (blocked_by OPT_OUT, still blocked), with when:
 * a handful of rows, which the contacts join by hash on the number as stored, as the block
 * list matches them when it keeps a number from being sent to. `$company` and `$optOut` name
 * the parameters.
 */
function optedOutSql(company: string, optOut: string): string {
  return `opted AS (
    SELECT b.phone_number AS phone, b.blocked_at
      FROM blocked_contacts b
     WHERE b.company_id = ${company} AND b.is_active AND b.blocked_by = ${optOut})`;
}

/** The failure kinds are the code's own constants (CONTACT_FAILURE_KINDS), never input. */
const FAILED_BY_KIND = `jsonb_build_object(${CONTACT_FAILURE_KINDS.map((kind) => {
  if (!/^[a-z_]+$/.test(kind)) {
    throw new Error(`Not a failure kind: ${kind}`);
  }
  return `'${kind}', count(*) FILTER (WHERE c.failure_kind = '${kind}')`;
}).join(', ')})`;

/** The priced categories are the code's own constants (PRICED_CATEGORIES), never input. */
const BILLABLE = `jsonb_build_object(${PRICED_CATEGORIES.map((category) => {
  if (!/^[a-z_]+$/.test(category)) {
    throw new Error(`Not a pricing category: ${category}`);
  }
  return `'${category}', count(*) FILTER (WHERE c.billed_category = '${category}')`;
}).join(', ')})`;

/**
 * A funnel over the contacts `c` (joined to `opted`): receipts, replies and opt-outs count
 * among the SENT, so that no figure outgrows `sent`; an opt-out counts when the number opted
 * out after this message went to it. `total` is the caller's (LEFT JOINs count no missing row).
 */
const FUNNEL = `count(*) FILTER (WHERE c.status = 'SENT')::int AS sent,
       count(*) FILTER (WHERE c.status = 'SENT' AND ${RECEIVED.delivered})::int AS delivered,
       count(*) FILTER (WHERE c.status = 'SENT' AND ${RECEIVED.read})::int AS read,
       count(*) FILTER (WHERE c.status = 'SENT' AND ${RECEIVED.replied})::int AS replied,
       count(*) FILTER (WHERE c.status = 'SENT' AND opted.blocked_at >= c.sent_at)::int AS "optedOut",
       count(*) FILTER (WHERE c.status = 'FAILED')::int AS failed,
       ${FAILED_BY_KIND} AS "failedByKind",
       ${BILLABLE} AS billable`;

/** A SENT contact's hour of sending, local to the zone `$2`, as the API writes local times. */
const SEND_HOUR = `CASE WHEN c.status = 'SENT' THEN date_trunc('hour', c.sent_at AT TIME ZONE $2) END`;

/**
 * One campaign's report in one pass over its contacts ($1 the campaign, $2 the zone, $3 the
 * company, $4 'OPT_OUT'): a row per sending row (its own, or each of a pool's senders, even one
 * left without contacts) with its funnel and its first and last send, and a row per hour with
 * its sends (`hour` null on the sender rows, `senderId` null on the hour rows).
 */
export const CAMPAIGN_REPORT = `WITH ${optedOutSql('$3', '$4')}
SELECT CASE WHEN grouping(s.id) = 0 THEN s.id END AS "senderId",
       min(s.gateway_config_id) AS "gatewayConfigId", min(s.gateway_instance) AS instance,
       to_char(${SEND_HOUR}, 'YYYY-MM-DD"T"HH24:00:00') AS hour,
       count(c.id)::int AS total, ${FUNNEL},
       min(c.sent_at) FILTER (WHERE c.status = 'SENT') AS "firstSendAt",
       max(c.sent_at) FILTER (WHERE c.status = 'SENT') AS "lastSendAt"
  FROM campaigns s
  LEFT JOIN campaign_contacts c ON c.campaign_id = s.id AND c.company_id = $3
  LEFT JOIN opted ON opted.phone = c.phone_number
 WHERE s.id IN (${SENDING_ROWS_OF('$1')})
 GROUP BY GROUPING SETS ((s.id), (${SEND_HOUR}))
 ORDER BY "senderId", hour`;

/** When a contact counts in the per-day report: its send (SENT) or its failure (FAILED). */
const OUTCOME_AT = `(CASE WHEN c.status = 'SENT' THEN c.sent_at ELSE c.failed_at END)`;
/** A date, not its text: grouping 100,000 rows by text took a sort on disk. */
const OUTCOME_DAY = `(${OUTCOME_AT} AT TIME ZONE $4)::date`;

/**
 * The company's contacts by the local day ($4 the zone) of their outcome between $2 and $3
 * ($1 the company, $5 'OPT_OUT'), campaigns and automation runs alike, read through
 * campaign_contacts_outcome_at_idx: a row per day with something, and the range's total (`day`
 * null). Contacts are the senders' rows, so a pool counts each contact once; `campaigns`
 * counts a pool once, `automationRuns` a run once however many numbers it used.
 */
export const DAILY_REPORT = `WITH ${optedOutSql('$1', '$5')}
SELECT to_char(${OUTCOME_DAY}, 'YYYY-MM-DD') AS day,
       count(DISTINCT coalesce(k.pool_id, k.id)) FILTER (WHERE k.automation_run_id IS NULL)::int AS campaigns,
       count(DISTINCT k.automation_run_id)::int AS "automationRuns",
       count(*)::int AS total, ${FUNNEL}
  FROM campaign_contacts c
  JOIN campaigns k ON k.id = c.campaign_id
  LEFT JOIN opted ON opted.phone = c.phone_number
 WHERE c.company_id = $1 AND c.status IN ('SENT', 'FAILED')
   AND ${OUTCOME_AT} >= $2 AND ${OUTCOME_AT} < $3
 GROUP BY GROUPING SETS ((${OUTCOME_DAY}), ())
 ORDER BY day`;
