import { DEFAULT_REACH_OUT } from '../../../common/messaging/reach-out';

/** The gateway configurations of pool `pool`'s senders (an SQL parameter), as an array. */
const CONFIGS_OF = (pool: string): string =>
  `ARRAY(SELECT gateway_config_id FROM campaigns WHERE pool_id = ${pool} AND id <> ${pool})`;

/** The senders of pool `pool`, as rows (campaign_id, config_id). */
const SENDERS_OF = (pool: string): string =>
  `SELECT id AS campaign_id, gateway_config_id AS config_id FROM campaigns
    WHERE pool_id = ${pool} AND id <> ${pool}`;

/**
 * The senders new contacts go to in turn, in the order they were given: those whose number
 * is not under a reach-out lock, or all of them when every one is.
 */
const TURNS_OF = (pool: string): string =>
  `SELECT coalesce(array_agg(k.gateway_config_id ORDER BY k.id) FILTER (WHERE g.reachout_lock_scope IS NULL),
                   array_agg(k.gateway_config_id ORDER BY k.id)) AS ids
     FROM campaigns k JOIN gateway_configs g ON g.id = k.gateway_config_id
    WHERE k.pool_id = ${pool} AND k.id <> ${pool}`;

/** Each person's latest conversation with one of the pool's numbers: (phone_key, config, at). */
const LATEST_CONVERSATIONS = (pool: string): string =>
  `SELECT DISTINCT ON (phone_key) phone_key, gateway_config_id AS config, last_inbound_at AS at
     FROM contact_conversations WHERE gateway_config_id = ANY (${CONFIGS_OF(pool)})
    ORDER BY phone_key, last_inbound_at DESC`;

/**
 * Whether any of the pool's numbers has talked with, or sent to, anyone yet (evaluated once per
 * statement): a pool of numbers new to everyone looks nobody up, so its people's keys are not
 * computed at all, as a single number's creation skips them.
 */
const HAS_HISTORY = (pool: string, company: string): string =>
  `(EXISTS (SELECT 1 FROM contact_conversations WHERE gateway_config_id = ANY (${CONFIGS_OF(pool)}))
    OR EXISTS (SELECT 1 FROM contact_senders WHERE company_id = ${company}
                 AND gateway_config_id = ANY (${CONFIGS_OF(pool)})))`;

/** The company's warm window (settings reachOut.warmDays), as an interval. */
const WARM_WINDOW = (company: string): string =>
  `make_interval(days => coalesce((SELECT (reach_out->>'warmDays')::int FROM companies WHERE id = ${company}),
                                  ${DEFAULT_REACH_OUT.warmDays}))`;

/**
 * An INSERT of the rows of `source` (columns id, phone, name; one per person) as the contacts
 * of pool `pool`, each given to one sender (its row's campaign_id): the number the person last
 * talked with (their latest conversation with one of the pool's numbers), else the one that
 * last sent to them (contact_senders, written by the SYSTEM-contacts feed), else the number
 * whose turn it is (TURNS_OF, in rotation: any numbering spreads them evenly, so none is sorted
 * for it); warm when that conversation is within the company's window. In `source`'s id order, `RETURNING campaign_id` per row. The one assignment
 * rule of pools, for a campaign's creation and an automation's run alike (domain/sender-pool.ts).
 * Set-based: the person's key is computed once (OFFSET 0 keeps the planner from inlining it
 * into each join's condition, which computed it twice per person), and the two lookups are
 * joins, not a probe per person and number.
 */
export function poolContactsInsertSql(source: string, pool: string, company: string): string {
  return `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, warm)
      SELECT s.campaign_id, ${company}, x.phone, left(x.name, 100),
             coalesce(x.kept_by = x.talked_with AND x.talked_at > now() - ${WARM_WINDOW(company)}, false)
        FROM (SELECT k.*, row_number() OVER () AS turn
                FROM (SELECT p.id, p.phone, p.name, coalesce(v.config, cs.gateway_config_id) AS kept_by,
                             v.config AS talked_with, v.at AS talked_at
                        FROM (SELECT src.id, src.phone, src.name,
                                     CASE WHEN ${HAS_HISTORY(pool, company)} THEN phone_match_key(src.phone) END AS key
                                FROM ${source} src OFFSET 0) p
                        LEFT JOIN (${LATEST_CONVERSATIONS(pool)}) v ON v.phone_key = p.key
                        LEFT JOIN contact_senders cs
                               ON cs.company_id = ${company} AND cs.phone_key = p.key
                              AND cs.gateway_config_id = ANY (${CONFIGS_OF(pool)})) k) x
        CROSS JOIN (${TURNS_OF(pool)}) t
        JOIN (${SENDERS_OF(pool)}) s
          ON s.config_id = coalesce(x.kept_by, t.ids[((x.turn - 1) % cardinality(t.ids)) + 1])
       ORDER BY x.id
      RETURNING campaign_id`;
}
