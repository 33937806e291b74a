import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trigger that counts a capped Cloud API number's recipients (CloudThroughputPacing) ran on
 * every turn of every instance, to look the number's tier up and find, for an Evolution
 * instance, no cap: a function call and a lookup in each delivery's statement. The pacing row
 * now carries whether its number is capped (`counts_recipients`, kept by triggers from the
 * configuration's provider and tier), and the trigger's WHEN skips the others without a call.
 */
export class CountRecipientsOfCappedNumbersOnly1764003000000 implements MigrationInterface {
  name = 'CountRecipientsOfCappedNumbersOnly1764003000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE instance_pacing ADD COLUMN counts_recipients boolean NOT NULL DEFAULT false`,
    );
    await q.query(`
      UPDATE instance_pacing p SET counts_recipients = true
        FROM gateway_configs g
       WHERE g.id = p.gateway_config_id
         AND tier_recipient_cap(g.provider, g.messaging_limit_tier) IS NOT NULL`);
    await q.query(`
      CREATE FUNCTION instance_pacing_capped() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.counts_recipients := coalesce(
          (SELECT tier_recipient_cap(provider, messaging_limit_tier) IS NOT NULL
             FROM gateway_configs WHERE id = NEW.gateway_config_id), false);
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER instance_pacing_capped_on_insert BEFORE INSERT ON instance_pacing
        FOR EACH ROW EXECUTE FUNCTION instance_pacing_capped()`);
    await q.query(`
      CREATE FUNCTION gateway_configs_tier_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE instance_pacing
           SET counts_recipients = tier_recipient_cap(NEW.provider, NEW.messaging_limit_tier) IS NOT NULL
         WHERE gateway_config_id = NEW.id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER gateway_configs_tier_on_update AFTER UPDATE OF provider, messaging_limit_tier
        ON gateway_configs FOR EACH ROW
        WHEN (tier_recipient_cap(OLD.provider, OLD.messaging_limit_tier)
              IS DISTINCT FROM tier_recipient_cap(NEW.provider, NEW.messaging_limit_tier))
        EXECUTE FUNCTION gateway_configs_tier_changed()`);
    await q.query(`DROP TRIGGER instance_recipients_on_count ON instance_pacing`);
    await q.query(`
      CREATE TRIGGER instance_recipients_on_count
        AFTER UPDATE OF sent_on_day, day ON instance_pacing
        FOR EACH ROW
        WHEN (NEW.counts_recipients
              AND (OLD.sent_on_day IS DISTINCT FROM NEW.sent_on_day OR OLD.day IS DISTINCT FROM NEW.day))
        EXECUTE FUNCTION instance_recipients_count()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER instance_recipients_on_count ON instance_pacing`);
    await q.query(`
      CREATE TRIGGER instance_recipients_on_count
        AFTER UPDATE OF sent_on_day, day ON instance_pacing
        FOR EACH ROW
        WHEN (OLD.sent_on_day IS DISTINCT FROM NEW.sent_on_day OR OLD.day IS DISTINCT FROM NEW.day)
        EXECUTE FUNCTION instance_recipients_count()`);
    await q.query(`DROP TRIGGER gateway_configs_tier_on_update ON gateway_configs`);
    await q.query(`DROP FUNCTION gateway_configs_tier_changed()`);
    await q.query(`DROP TRIGGER instance_pacing_capped_on_insert ON instance_pacing`);
    await q.query(`DROP FUNCTION instance_pacing_capped()`);
    await q.query(`ALTER TABLE instance_pacing DROP COLUMN counts_recipients`);
  }
}
