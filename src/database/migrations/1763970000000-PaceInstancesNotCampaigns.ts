import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The pause after a message is kept on the instance instead of being written into the campaign
 * that sent it and into each of the instance's other campaigns: `pause_draw` is where in their
 * [min, max] the message's pause falls (0–1, drawn once per message), so campaign d may send
 * again at last_message_at + d.min + pause_draw × (d.max − d.min): its own pause, as before,
 * and a paced message no longer rewrites five campaign rows and their indexes. That rule is
 * written once, as the SQL function pause_ends_at.
 *
 * The claim then looks for instances, not campaigns: `ready_at` is the earliest moment one of
 * the instance's ACTIVE campaigns may send (its own next_send_at and its pause), null when it
 * has none, which keeps idle instances out of the due index. Triggers keep it: on campaigns
 * (a status, next send or pause range that changes) and on instance_pacing (a new message), so
 * that no writer can leave it behind. The campaigns trigger also creates the instance's row
 * when its first campaign becomes ACTIVE.
 */
export class PaceInstancesNotCampaigns1763970000000 implements MigrationInterface {
  name = 'PaceInstancesNotCampaigns1763970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE instance_pacing
        ADD COLUMN pause_draw double precision NOT NULL DEFAULT 0,
        ADD COLUMN ready_at timestamptz`);
    await q.query(`
      CREATE FUNCTION pause_ends_at(last_message timestamptz, draw double precision,
                                    min_seconds integer, max_seconds integer)
      RETURNS timestamptz LANGUAGE sql STABLE PARALLEL SAFE AS $$
        -- One expression, so that the planner inlines it where it is used: the one definition
        -- of a campaign's pause, for the triggers, the engine's statements and the API's reads.
        SELECT last_message + make_interval(secs => min_seconds + draw * (max_seconds - min_seconds))
      $$`);
    await q.query(`
      CREATE FUNCTION instance_ready_at(config_id integer, last_message timestamptz, draw double precision)
      RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
      DECLARE
        ready timestamptz;
      BEGIN
        -- PL/pgSQL, not SQL: its plan is kept for the session, where a SQL function called
        -- from a trigger is planned again on every call (most of a message's trigger cost).
        SELECT min(greatest(d.next_send_at,
                            pause_ends_at(last_message, draw, d.min_interval, d.max_interval)))
          INTO ready
          FROM campaigns d
         WHERE d.gateway_config_id = config_id AND d.status = 'ACTIVE';
        RETURN ready;
      END $$`);
    await q.query(`
      CREATE FUNCTION instance_pacing_new_message() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.ready_at := instance_ready_at(NEW.gateway_config_id, NEW.last_message_at, NEW.pause_draw);
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER instance_pacing_ready_on_message
        BEFORE UPDATE OF last_message_at, pause_draw ON instance_pacing
        FOR EACH ROW
        WHEN (OLD.last_message_at IS DISTINCT FROM NEW.last_message_at
              OR OLD.pause_draw IS DISTINCT FROM NEW.pause_draw)
        EXECUTE FUNCTION instance_pacing_new_message()`);
    await q.query(`
      CREATE FUNCTION instance_ready_refresh(config_id integer) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        pacing instance_pacing%ROWTYPE;
        ready timestamptz;
      BEGIN
        SELECT * INTO pacing FROM instance_pacing WHERE gateway_config_id = config_id FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO instance_pacing (gateway_config_id, company_id)
          SELECT id, company_id FROM gateway_configs WHERE id = config_id
          ON CONFLICT (gateway_config_id) DO NOTHING;
          SELECT * INTO pacing FROM instance_pacing WHERE gateway_config_id = config_id FOR UPDATE;
        END IF;
        -- Read after the lock: this statement's snapshot sees every campaign committed by a
        -- writer that refreshed the row before us (READ COMMITTED).
        ready := instance_ready_at(config_id, pacing.last_message_at, pacing.pause_draw);
        UPDATE instance_pacing SET ready_at = ready
         WHERE gateway_config_id = config_id AND ready_at IS DISTINCT FROM ready;
      END $$`);
    await q.query(`
      CREATE FUNCTION campaigns_instance_ready_changed() RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          PERFORM instance_ready_refresh(OLD.gateway_config_id);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.gateway_config_id <> OLD.gateway_config_id) THEN
          PERFORM instance_ready_refresh(NEW.gateway_config_id);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER campaigns_instance_ready_on_insert
        AFTER INSERT ON campaigns
        FOR EACH ROW WHEN (NEW.status = 'ACTIVE') EXECUTE FUNCTION campaigns_instance_ready_changed()`);
    await q.query(`
      CREATE TRIGGER campaigns_instance_ready_on_delete
        AFTER DELETE ON campaigns
        FOR EACH ROW WHEN (OLD.status = 'ACTIVE') EXECUTE FUNCTION campaigns_instance_ready_changed()`);
    await q.query(`
      CREATE TRIGGER campaigns_instance_ready_on_update
        AFTER UPDATE OF status, next_send_at, gateway_config_id, min_interval, max_interval ON campaigns
        FOR EACH ROW
        WHEN ((OLD.status = 'ACTIVE' OR NEW.status = 'ACTIVE')
              AND (OLD.status IS DISTINCT FROM NEW.status
                   OR OLD.next_send_at IS DISTINCT FROM NEW.next_send_at
                   OR OLD.gateway_config_id IS DISTINCT FROM NEW.gateway_config_id
                   OR OLD.min_interval IS DISTINCT FROM NEW.min_interval
                   OR OLD.max_interval IS DISTINCT FROM NEW.max_interval))
        EXECUTE FUNCTION campaigns_instance_ready_changed()`);
    await q.query(`
      CREATE INDEX campaigns_instance_due_idx ON campaigns (gateway_config_id, next_send_at)
        WHERE status = 'ACTIVE'`);
    await q.query(`DROP INDEX campaigns_due_idx`);
    await q.query(`
      SELECT instance_ready_refresh(g.id)
        FROM gateway_configs g
       WHERE EXISTS (SELECT 1 FROM campaigns c WHERE c.gateway_config_id = g.id AND c.status = 'ACTIVE')`);
    await q.query(`
      CREATE INDEX instance_pacing_due_idx ON instance_pacing ((greatest(ready_at, held_until)))
        WHERE ready_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX instance_pacing_due_idx`);
    await q.query(
      `CREATE INDEX campaigns_due_idx ON campaigns (next_send_at) WHERE status = 'ACTIVE'`,
    );
    await q.query(`DROP INDEX campaigns_instance_due_idx`);
    await q.query(`DROP TRIGGER campaigns_instance_ready_on_update ON campaigns`);
    await q.query(`DROP TRIGGER campaigns_instance_ready_on_delete ON campaigns`);
    await q.query(`DROP TRIGGER campaigns_instance_ready_on_insert ON campaigns`);
    await q.query(`DROP FUNCTION campaigns_instance_ready_changed()`);
    await q.query(`DROP FUNCTION instance_ready_refresh(integer)`);
    await q.query(`DROP TRIGGER instance_pacing_ready_on_message ON instance_pacing`);
    await q.query(`DROP FUNCTION instance_pacing_new_message()`);
    await q.query(`DROP FUNCTION instance_ready_at(integer, timestamptz, double precision)`);
    await q.query(`DROP FUNCTION pause_ends_at(timestamptz, double precision, integer, integer)`);
    await q.query(`ALTER TABLE instance_pacing DROP COLUMN ready_at, DROP COLUMN pause_draw`);
  }
}
