import {
  campaignPauseEndsSql,
  dayLimitSql,
  INSTANCE_DUE_AT,
  INSTANCE_HAS_CAMPAIGNS,
  sentTodaySql,
  TIER_ROOM_SQL,
} from '../../gateway/infrastructure/instance-pacing.sql';
import {
  CAMPAIGN_COLUMNS,
  COMPANY_ACTIVE,
  MOVE,
  TAKE_SET,
  TAKEN_CONTACT_COLUMNS,
  THROUGHPUT_PER_SECOND,
} from './dispatch.sql';

/** The claim's SQL (DispatchClaimRepository.claimDue), and the pick of a campaign's next contact. */

/** Due instances read per campaign claimed: some have nothing to claim yet (leased, or pausing). */
export const DUE_INSTANCES_PER_CLAIM = 4;

/**
 * Up to this many due instances, the claim looks their campaigns up by index (CLAIM_LISTED);
 * beyond it, one pass over the ACTIVE campaigns costs less than the lookups (CLAIM_BY_SCAN).
 * A prepared statement's plan cannot tell the two cases apart, so the worker counts first.
 */
export const LISTED_DUE_INSTANCES = 64;

/** Where the due instances start and end; `limit` is the statement's parameter. */
function dueInstancesWhere(limit: string): string {
  return `WHERE ${INSTANCE_HAS_CAMPAIGNS} AND ${INSTANCE_DUE_AT} <= now()
   ORDER BY ${INSTANCE_DUE_AT} LIMIT ${limit}`;
}

/**
 * The instances the claim chooses among: nobody holds them and one of their ACTIVE campaigns
 * is due and past its pause (ready_at), the most overdue first, read in the order of the due index
 * (instance_pacing_due_idx) and only as many as the claim could use ($2 times
 * DUE_INSTANCES_PER_CLAIM): its cost does not grow with the backlog or with idle instances.
 */
const DUE_INSTANCES = `
  SELECT p.gateway_config_id, p.last_message_at, p.pause_draw, ${INSTANCE_DUE_AT} AS due_at
    FROM instance_pacing p
   ${dueInstancesWhere(`$2 * ${DUE_INSTANCES_PER_CLAIM}`)}`;

/** The due instances' ids alone ($1 of them at most), for the worker to count. */
export const DUE_INSTANCE_IDS = `
  SELECT p.gateway_config_id AS id FROM instance_pacing p ${dueInstancesWhere('$1')}`;

/** The instances of `DUE_INSTANCE_IDS` ($6), reached by key, if still due. */
const LISTED_DUE_INSTANCES_SQL = `
  SELECT p.gateway_config_id, p.last_message_at, p.pause_draw, ${INSTANCE_DUE_AT} AS due_at
    FROM instance_pacing p
   WHERE p.gateway_config_id = ANY ($6::int[])
     AND ${INSTANCE_HAS_CAMPAIGNS} AND ${INSTANCE_DUE_AT} <= now()`;

/** What makes campaign `d` of due instance `i` claimable (see CANDIDATES). */
const CLAIMABLE = `d.status = 'ACTIVE' AND d.next_send_at <= now()
     AND (d.locked_until IS NULL OR d.locked_until < now())
     AND NOT (d.id = ANY($4::int[])) AND d.pool_id IS DISTINCT FROM d.id
     AND ${campaignPauseEndsSql('d', 'i')} <= now()`;

/** The campaign of each instance whose turn was longest ago (round robin). */
const TURN_ORDER = `d.last_turn_at NULLS FIRST, d.id`;

/**
 * Of each due instance, the claimable campaign whose turn was longest ago (round robin): due,
 * past its own pause after the instance's last message, nobody holds it, and not one this
 * worker still has in flight ($4). A pool's own row never sends (its senders do).
 */
const CANDIDATES = `
  SELECT DISTINCT ON (i.gateway_config_id) d.id, i.due_at FROM due_instances i
    JOIN campaigns d ON d.gateway_config_id = i.gateway_config_id
   WHERE ${CLAIMABLE}
   ORDER BY i.gateway_config_id, ${TURN_ORDER}`;

/** The same, each instance's campaigns looked up through campaigns_instance_due_idx. */
const LISTED_CANDIDATES = `
  SELECT turn.id, i.due_at FROM due_instances i
    CROSS JOIN LATERAL (
      SELECT d.id FROM campaigns d
       WHERE d.gateway_config_id = i.gateway_config_id AND ${CLAIMABLE}
       ORDER BY ${TURN_ORDER} LIMIT 1) turn`;

/**
 * $2 of the candidates, the most overdue first, locked with their instance's row (a campaign
 * or an instance another worker is claiming is skipped: two workers never lease two campaigns
 * of one instance together, where the second could only wait) and checked again as of their
 * latest rows; each row is reached by its key.
 */
const DUE_CAMPAIGNS = `
  SELECT c.id, c.locked_by AS previous_holder, c.gateway_config_id, c.min_interval, c.max_interval
    FROM candidates JOIN campaigns c ON c.id = candidates.id
    JOIN instance_pacing i ON i.gateway_config_id = c.gateway_config_id
   WHERE c.status = 'ACTIVE' AND c.next_send_at <= now()
     AND (c.locked_until IS NULL OR c.locked_until < now())
   ORDER BY candidates.due_at LIMIT $2 FOR UPDATE OF c, i SKIP LOCKED`;

/**
 * The instances of the due campaigns that may send now, as of their latest rows (locked, a
 * row another sender is writing skipped): nobody holds them, the campaign's pause after their
 * last message is over, their figure of the day ($5: APP_TIMEZONE) is not reached, and a Cloud
 * API number has room in its tier. The quota is the lower of the two (least() skips a null).
 */
const FREE_INSTANCES = `
  SELECT p.gateway_config_id, least(${dayLimitSql('$5')} - ${sentTodaySql('$5')}, ${TIER_ROOM_SQL}) AS quota
    FROM instance_pacing p
    JOIN gateway_configs g ON g.id = p.gateway_config_id
    JOIN due ON due.gateway_config_id = p.gateway_config_id
   WHERE (p.held_until IS NULL OR p.held_until < now())
     AND ${campaignPauseEndsSql('due', 'p')} <= now()
     AND coalesce(${sentTodaySql('$5')} < ${dayLimitSql('$5')}, true)
     AND coalesce(${TIER_ROOM_SQL} > 0, true)
     FOR UPDATE OF p SKIP LOCKED`;

/**
 * How campaign `campaignId` picks its contacts, in one lookup of its row and its gateway
 * configuration's: null in id order; WARM_FIRST warm ones first (warmFirst); COLD only warm
 * ones and ALL none (the instance's reach-out lock, GatewayConfigsService.refusalsReceived).
 */
function pickModeSql(campaignId: string): string {
  return `(SELECT CASE WHEN g.reachout_lock_scope IS NOT NULL THEN g.reachout_lock_scope
                      WHEN k.warm_first THEN 'WARM_FIRST' END AS mode
             FROM campaigns k JOIN gateway_configs g ON g.id = k.gateway_config_id
            WHERE k.id = ${campaignId})`;
}

/**
 * The next ready contact of campaign `campaignId` (an SQL expression), locked (a row another
 * statement is taking is skipped): PENDING, its retry due, in id order; `onlyIf` guards it.
 * Warm ones are looked for first (campaign_contacts_pending_warm_idx) only when the pick mode
 * asks for them, so the common pick costs one more key lookup than a plain one.
 */
export function nextReadyContactSql(campaignId: string, onlyIf = 'true'): string {
  const ready = `campaign_id = ${campaignId} AND status IN (${MOVE.take.from})
                AND (next_attempt_at IS NULL OR next_attempt_at <= now()) AND ${onlyIf}`;
  return `(SELECT coalesce(warm.id, next.id) FROM ${pickModeSql(campaignId)} AS pick
             LEFT JOIN LATERAL (
               SELECT id FROM campaign_contacts
                WHERE ${ready} AND warm AND pick.mode IN ('COLD', 'WARM_FIRST')
                ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) AS warm ON true
             LEFT JOIN LATERAL (
               SELECT id FROM campaign_contacts
                WHERE ${ready} AND warm.id IS NULL AND (pick.mode IS NULL OR pick.mode = 'WARM_FIRST')
                ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) AS next ON true)`;
}

/**
 * The first contact of each campaign the claim leased that may send at once — its instance
 * held, its company active, no window to check, no interrupted send to settle first — marked
 * SENDING in the claim's own statement, so that a paced message needs no separate begin.
 */
const FIRST_CONTACTS = `
  SELECT l.id AS campaign_id, ${nextReadyContactSql('l.id')} AS contact_id
    FROM leased l JOIN held h ON h.gateway_config_id = l."gatewayConfigId"
   WHERE l."companyActive" AND NOT l."takenOver" AND l."sendingWindow" IS NULL`;

/**
 * The claim: leases the due campaigns and holds their instances, and marks the first contact
 * of each SENDING, in one statement ($1 worker, $2 limit, $3 lease seconds, $4 campaigns in
 * flight, $5 APP_TIMEZONE). The due instances and their candidates are given as SQL.
 */
function claimSql(dueInstances: string, candidates: string): string {
  return `WITH due_instances AS (${dueInstances}),
       candidates AS (${candidates}),
       due AS (${DUE_CAMPAIGNS}),
       leased AS (
         UPDATE campaigns SET locked_by = $1, locked_until = now() + make_interval(secs => $3)
          -- Reached by key, not joined: the planner would scan the table, or probe it once per row.
          WHERE campaigns.id = ANY (ARRAY(SELECT id FROM due))
          RETURNING ${CAMPAIGN_COLUMNS}, ${COMPANY_ACTIVE},
                    (SELECT d.previous_holder FROM due d WHERE d.id = campaigns.id) IS NOT NULL AS "takenOver",
                    warm_first AS "warmFirst", ${THROUGHPUT_PER_SECOND} AS "throughputPerSecond",
                    coalesce(sending_window, (SELECT sending_window FROM companies
                                               WHERE companies.id = campaigns.company_id)) AS "sendingWindow"),
       free AS (${FREE_INSTANCES}),
       held AS (
         UPDATE instance_pacing p SET held_by = $1, held_until = now() + make_interval(secs => $3)
           FROM free WHERE p.gateway_config_id = free.gateway_config_id
          RETURNING p.gateway_config_id, free.quota),
       first_contacts AS (${FIRST_CONTACTS}),
       taken AS (
         UPDATE campaign_contacts c SET ${TAKE_SET}
           FROM first_contacts f WHERE c.id = f.contact_id
          RETURNING c.campaign_id, ${TAKEN_CONTACT_COLUMNS})
       SELECT leased.*, held.gateway_config_id IS NOT NULL AS "instanceHeld", held.quota, taken.*
         FROM leased LEFT JOIN held ON held.gateway_config_id = leased."gatewayConfigId"
              LEFT JOIN taken ON taken.campaign_id = leased.id`;
}

/** The claim reading the due instances itself and passing over the ACTIVE campaigns once. */
export const CLAIM_BY_SCAN = claimSql(DUE_INSTANCES, CANDIDATES);

/** The claim of the instances listed in $6, their campaigns looked up by index. */
export const CLAIM_LISTED = claimSql(LISTED_DUE_INSTANCES_SQL, LISTED_CANDIDATES);
