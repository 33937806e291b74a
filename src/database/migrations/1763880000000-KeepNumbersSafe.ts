import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What keeps a company's WhatsApp number safe (docs/ARCHITECTURE.md, "Keeping numbers safe"):
 * the pace, daily count and warm-up of each gateway instance (instance_pacing, one row per
 * configuration), the daily limit and warm-up settings of a configuration, the sending window
 * of a company (its default) and of a campaign, and the waiting reason and long pauses of a
 * campaign.
 */
export class KeepNumbersSafe1763880000000 implements MigrationInterface {
  name = 'KeepNumbersSafe1763880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE gateway_configs
        ADD COLUMN daily_limit integer,
        ADD COLUMN warmup_start_per_day integer,
        ADD COLUMN warmup_growth_percent integer,
        ADD CONSTRAINT gateway_configs_daily_limit_check CHECK (daily_limit > 0),
        ADD CONSTRAINT gateway_configs_warmup_check
          CHECK (warmup_start_per_day > 0 AND warmup_growth_percent >= 0)`);
    await q.query(`ALTER TABLE companies ADD COLUMN sending_window jsonb`);
    await q.query(`
      CREATE TABLE instance_pacing (
        gateway_config_id integer PRIMARY KEY REFERENCES gateway_configs(id) ON DELETE CASCADE,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        last_message_at timestamptz NOT NULL DEFAULT '-infinity',
        held_by varchar(100),
        held_until timestamptz,
        day date,
        sent_on_day integer NOT NULL DEFAULT 0,
        first_send_at timestamptz
      )`);
    await q.query(`
      ALTER TABLE campaigns
        ADD COLUMN waiting_reason varchar(20),
        ADD COLUMN sending_window jsonb,
        ADD COLUMN last_turn_at timestamptz,
        ADD COLUMN long_pause_every integer,
        ADD COLUMN long_pause_min integer,
        ADD COLUMN long_pause_max integer,
        ADD CONSTRAINT campaigns_long_pause_check
          CHECK (long_pause_every > 0 AND long_pause_min >= 0 AND long_pause_min <= long_pause_max)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaigns DROP COLUMN waiting_reason, DROP COLUMN sending_window, DROP COLUMN last_turn_at,
        DROP COLUMN long_pause_every, DROP COLUMN long_pause_min, DROP COLUMN long_pause_max`);
    await q.query(`DROP TABLE instance_pacing`);
    await q.query(`ALTER TABLE companies DROP COLUMN sending_window`);
    await q.query(`
      ALTER TABLE gateway_configs DROP COLUMN daily_limit, DROP COLUMN warmup_start_per_day,
        DROP COLUMN warmup_growth_percent`);
  }
}
