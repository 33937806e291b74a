/**
 * The SQL of an instance's pace and day (instance_pacing `p`, joined to its gateway
 * configuration `g` where a figure of the day is read). Shared by InstancePacing's statements
 * and the campaign engine's, which hold the instance with the claim and release it with the
 * delivery in one statement each (docs/ARCHITECTURE.md, "Keeping numbers safe"). `tz` is the
 * parameter that carries APP_TIMEZONE.
 */

/** The local day (APP_TIMEZONE, parameter `tz`) as of the database clock. */
export const todaySql = (tz: string): string => `(now() AT TIME ZONE ${tz})::date`;

/** A warm-up's growth is bounded to a year: past it the figure is moot, and power() stays finite. */
const WARMUP_MAX_DAYS = 365;

/**
 * The warm-up's figure of the day for configuration `g` and pacing row `p`: the start figure
 * grown by the percentage once per local day since the instance's first send.
 */
export function warmupLimitSql(tz: string): string {
  const firstDay = `coalesce((p.first_send_at AT TIME ZONE ${tz})::date, ${todaySql(tz)})`;
  return `CASE WHEN g.warmup_start_per_day IS NOT NULL THEN
            least(floor(g.warmup_start_per_day * power(1 + g.warmup_growth_percent / 100.0,
                  least(${WARMUP_MAX_DAYS}, greatest(0, ${todaySql(tz)} - ${firstDay})))), 2147483647)::int
          END`;
}

/** What the instance may send today: the lower of its daily limit and its warm-up figure. */
export function dayLimitSql(tz: string): string {
  return `least(g.daily_limit, ${warmupLimitSql(tz)})`;
}

/**
 * A Cloud API number's room in its tier (RECIPIENT_CAP_SQL unique people in a rolling 24 h:
 * the SQL function tier_recipient_cap reads it from the tier, null for Evolution or no cap):
 * the cap less the people its turns counted in the window (instance_recipients, 10-minute
 * buckets, a bucket counted while any of it may be in the window). Null: no cap.
 */
export const RECIPIENT_CAP_SQL = `tier_recipient_cap(g.provider, g.messaging_limit_tier)`;

export const TIER_ROOM_SQL = `CASE WHEN ${RECIPIENT_CAP_SQL} IS NOT NULL THEN
    ${RECIPIENT_CAP_SQL} - (SELECT coalesce(sum(r.recipients), 0)::int FROM instance_recipients r
                        WHERE r.gateway_config_id = g.id
                          AND r.bucket_start > now() - interval '1 day 10 minutes')
  END`;

/**
 * When a capped number has room again: its oldest bucket in the window leaves it (see
 * TIER_ROOM_SQL); a minute from now when it holds none.
 */
export const TIER_ROOM_AT_SQL = `coalesce(
    (SELECT min(r.bucket_start) + interval '1 day 10 minutes' FROM instance_recipients r
      WHERE r.gateway_config_id = g.id AND r.bucket_start > now() - interval '1 day 10 minutes'),
    now() + interval '1 minute')`;

/** The messages counted for today (the stored count is of `p.day`, which may be an older day). */
export function sentTodaySql(tz: string): string {
  return `CASE WHEN p.day = ${todaySql(tz)} THEN p.sent_on_day ELSE 0 END`;
}

/**
 * The SET list that ends `holder`'s hold on row `p` and counts `sent` messages that went out or
 * may have. `pauseDraw` (0–1, null: no gateway call was made that a pause should follow) starts
 * the instance's pause: each of its campaigns waits its own [min, max] at that point
 * (campaignPauseEndsSql), and a trigger moves the instance's ready_at with it. `restSeconds`
 * (null: none) keeps everyone off the instance that long: nobody holds it, yet it is not free
 * (held_until ahead). The count moves
 * whoever holds the instance now (those messages went out either way), the hold ends only if
 * it is still `holder`'s.
 */
export function releaseHoldSql(
  holder: string,
  sent: string,
  tz: string,
  pauseDraw: string,
  restSeconds = 'NULL::float',
): string {
  const called = `(${pauseDraw} IS NOT NULL OR ${sent} > 0)`;
  return `held_by = CASE WHEN p.held_by = ${holder} THEN NULL ELSE p.held_by END,
          held_until = CASE WHEN p.held_by = ${holder} THEN now() + make_interval(secs => ${restSeconds})
                            ELSE p.held_until END,
          last_message_at = CASE WHEN ${called} THEN now() ELSE p.last_message_at END,
          pause_draw = CASE WHEN ${called} THEN coalesce(${pauseDraw}, 0) ELSE p.pause_draw END,
          sent_on_day = ${sentTodaySql(tz)} + ${sent},
          day = ${todaySql(tz)},
          first_send_at = CASE WHEN ${sent} > 0 THEN coalesce(p.first_send_at, now()) ELSE p.first_send_at END`;
}

/**
 * When campaign `d` may send again after the last message of its instance `p`: its own pause,
 * drawn at the point of its [min, max] the last message's pause fell on (p.pause_draw).
 */
export function campaignPauseEndsSql(d: string, p: string): string {
  return `pause_ends_at(${p}.last_message_at, ${p}.pause_draw, ${d}.min_interval, ${d}.max_interval)`;
}

/**
 * When instance `p` may send again, as its due index (instance_pacing_due_idx) has it: once one
 * of its ACTIVE campaigns is due and past its pause (ready_at, kept by triggers), and nobody
 * holds it. Only instances with ACTIVE campaigns are in the index (`INSTANCE_HAS_CAMPAIGNS`).
 */
export const INSTANCE_DUE_AT = `greatest(p.ready_at, p.held_until)`;
export const INSTANCE_HAS_CAMPAIGNS = `p.ready_at IS NOT NULL`;
