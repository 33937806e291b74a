import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Meta's messaging-limit tier, held by the engine (docs/ARCHITECTURE.md, "Meta's limits"):
 * - `tier_recipient_cap(provider, tier)`: the unique people a Cloud API number may reach in a
 *   rolling 24 h, read from its tier (TIER_250 → 250, TIER_1K → 1,000, TIER_100K → 100,000);
 *   null for an Evolution instance, an unlimited tier or one not known yet (a function, not a
 *   generated column, which TypeORM's schema builder would need metadata of its own for);
 * - `instance_recipients`: the people each capped number sent to, in 10-minute buckets,
 *   counted by a trigger when a turn's messages are counted for the instance's day
 *   (instance_pacing.sent_on_day), so that no send path can forget it. A person messaged twice
 *   in 24 h counts twice: the cap is never exceeded, at worst reached a little early.
 */
export class CloudThroughputPacing1764000000000 implements MigrationInterface {
  name = 'CloudThroughputPacing1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION tier_recipient_cap(provider varchar, tier varchar) RETURNS integer
      LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN provider = 'CLOUD_API' AND tier ~ '^TIER_[0-9]{1,6}K?$'
                    THEN substring(tier FROM '[0-9]+')::integer
                         * CASE WHEN tier LIKE '%K' THEN 1000 ELSE 1 END
               END
      $$`);
    await q.query(`
      CREATE TABLE instance_recipients (
        gateway_config_id integer NOT NULL REFERENCES gateway_configs (id) ON DELETE CASCADE,
        bucket_start timestamptz NOT NULL,
        recipients integer NOT NULL,
        PRIMARY KEY (gateway_config_id, bucket_start))`);
    await q.query(`
      CREATE FUNCTION instance_recipients_count() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        added integer := NEW.sent_on_day
                         - CASE WHEN OLD.day IS NOT DISTINCT FROM NEW.day THEN OLD.sent_on_day ELSE 0 END;
      BEGIN
        IF added > 0 AND EXISTS (SELECT 1 FROM gateway_configs
                                  WHERE id = NEW.gateway_config_id
                                    AND tier_recipient_cap(provider, messaging_limit_tier) IS NOT NULL) THEN
          INSERT INTO instance_recipients (gateway_config_id, bucket_start, recipients)
          VALUES (NEW.gateway_config_id, date_bin('10 minutes', now(), timestamptz '2000-01-01'), added)
          ON CONFLICT (gateway_config_id, bucket_start)
          DO UPDATE SET recipients = instance_recipients.recipients + EXCLUDED.recipients;
          DELETE FROM instance_recipients
           WHERE gateway_config_id = NEW.gateway_config_id AND bucket_start < now() - interval '2 days';
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER instance_recipients_on_count
        AFTER UPDATE OF sent_on_day, day ON instance_pacing
        FOR EACH ROW
        WHEN (OLD.sent_on_day IS DISTINCT FROM NEW.sent_on_day OR OLD.day IS DISTINCT FROM NEW.day)
        EXECUTE FUNCTION instance_recipients_count()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER instance_recipients_on_count ON instance_pacing`);
    await q.query(`DROP FUNCTION instance_recipients_count()`);
    await q.query(`DROP TABLE instance_recipients`);
    await q.query(`DROP FUNCTION tier_recipient_cap(varchar, varchar)`);
  }
}
