import { warmSql } from './campaigns.repository';

/** The senders of pool `pool` (an SQL parameter), as rows (campaign_id, config_id). */
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

/**
 * The number person `phone` should keep, among the pool's: the one they last talked with (their
 * latest conversation with one of the pool's numbers), else the one that last sent to them
 * (contact_senders, written by the SYSTEM-contacts feed); null for someone new to all of them.
 */
const KEPT_BY = (phone: string, pool: string, company: string): string =>
  `coalesce(
     (SELECT v.gateway_config_id FROM contact_conversations v
       WHERE v.phone_key = phone_match_key(${phone})
         AND v.gateway_config_id IN (SELECT config_id FROM (${SENDERS_OF(pool)}) p)
       ORDER BY v.last_inbound_at DESC LIMIT 1),
     (SELECT cs.gateway_config_id FROM contact_senders cs
       WHERE cs.company_id = ${company} AND cs.phone_key = phone_match_key(${phone})
         AND cs.gateway_config_id IN (SELECT config_id FROM (${SENDERS_OF(pool)}) p)))`;

/**
 * An INSERT of the rows of `source` (columns id, phone, name; one per person) as the contacts
 * of pool `pool`, each given to one sender (its row's campaign_id): the number they keep
 * (KEPT_BY), else the next in turn (TURNS_OF), so that the new ones spread evenly. In `source`'s
 * id order, `RETURNING campaign_id` per row. The one assignment rule of pools, for a campaign's
 * creation and an automation's run alike (domain/sender-pool.ts).
 */
export function poolContactsInsertSql(source: string, pool: string, company: string): string {
  return `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, warm)
      SELECT s.campaign_id, ${company}, x.phone, left(x.name, 100), ${warmSql('x.phone', 's.config_id', company)}
        FROM (SELECT placed.*, row_number() OVER (PARTITION BY placed.kept_by IS NULL ORDER BY placed.id) AS turn
                FROM (SELECT src.id, src.phone, src.name, ${KEPT_BY('src.phone', pool, company)} AS kept_by
                        FROM ${source} src) placed) x
        CROSS JOIN (${TURNS_OF(pool)}) t
        JOIN (${SENDERS_OF(pool)}) s
          ON s.config_id = coalesce(x.kept_by, t.ids[((x.turn - 1) % cardinality(t.ids)) + 1])
       ORDER BY x.id
      RETURNING campaign_id`;
}
