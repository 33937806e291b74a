import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign on a pool of senders (docs/ARCHITECTURE.md, "Sender pools"): the campaign a person
 * sees is the pool's own row (`pool_id = id`), which holds the definition and the status and
 * never sends; each sender is a row of its own (`pool_id` = the pool's id, its
 * `gateway_config_id` the sender), which the engine sends like any campaign, and each contact
 * belongs to exactly one of them (`campaign_contacts.campaign_id`). So the engine's at-most-once
 * rules hold per contact whatever its sender, and every sender keeps its own lease, pace,
 * reach-out lock and reconciliation.
 *
 * - `sender_lost_at`, `sender_lost_reason`, `sender_lost_cause`: a sender that cannot go on
 *   (GATEWAY: logged out, refused credentials, disconnected too long; LOCKED: WhatsApp's
 *   reach-out lock with cold contacts left); its contacts still PENDING went to the others. On
 *   the pool's own row, `sender_lost_at` marks a pool paused because no sender was left.
 * - `contact_senders`: the number that last sent to each person of a company, so that the next
 *   pool campaign keeps them on it (written by the SYSTEM-contacts feed, off the send path).
 * - `contact_conversations_phone_idx`: the conversations of one person across the pool's
 *   numbers, in one probe per contact at creation.
 * - The instance's due time leaves out pool rows, which never send.
 */
export class SenderPools1763990000000 implements MigrationInterface {
  name = 'SenderPools1763990000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaigns
        ADD COLUMN pool_id integer REFERENCES campaigns(id) ON DELETE CASCADE,
        ADD COLUMN sender_lost_at timestamptz,
        ADD COLUMN sender_lost_reason varchar(300),
        ADD COLUMN sender_lost_cause varchar(10)
          CONSTRAINT campaigns_sender_lost_cause_check CHECK (sender_lost_cause IN ('GATEWAY', 'LOCKED'))`);
    await q.query(
      `CREATE INDEX campaigns_pool_idx ON campaigns (pool_id, id) WHERE pool_id IS NOT NULL`,
    );
    await q.query(`
      CREATE INDEX campaigns_active_pools_idx ON campaigns (id)
        WHERE pool_id = id AND status = 'ACTIVE'`);
    await q.query(`
      CREATE TABLE contact_senders (
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        phone_key varchar(20) NOT NULL,
        gateway_config_id integer NOT NULL REFERENCES gateway_configs(id) ON DELETE CASCADE,
        last_sent_at timestamptz NOT NULL,
        PRIMARY KEY (company_id, phone_key))`);
    await q.query(
      `CREATE INDEX contact_senders_gateway_config_idx ON contact_senders (gateway_config_id)`,
    );
    await q.query(`
      CREATE INDEX contact_conversations_phone_idx ON contact_conversations (phone_key, last_inbound_at DESC)`);
    await this.readyAt(q, `AND d.pool_id IS DISTINCT FROM d.id`);
    await this.readyTriggers(q, (row) => `AND ${row}.pool_id IS DISTINCT FROM ${row}.id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await this.readyTriggers(q, () => '');
    await this.readyAt(q, '');
    await q.query(`DROP INDEX contact_conversations_phone_idx`);
    await q.query(`DROP TABLE contact_senders`);
    await q.query(`DROP INDEX campaigns_active_pools_idx`);
    await q.query(`DROP INDEX campaigns_pool_idx`);
    await q.query(`
      ALTER TABLE campaigns DROP COLUMN sender_lost_cause, DROP COLUMN sender_lost_reason,
        DROP COLUMN sender_lost_at, DROP COLUMN pool_id`);
  }

  /**
   * The triggers of PaceInstancesNotCampaigns that keep an instance's ready_at, with `filter`
   * on the campaign row: a pool's own row never sends, so its moves must not lock its first
   * sender's instance row (a person's pause locks the pool's row, then its senders', while a
   * sender's delivery locks its row, then its instance's).
   */
  private async readyTriggers(q: QueryRunner, filter: (row: string) => string): Promise<void> {
    await q.query(`DROP TRIGGER campaigns_instance_ready_on_insert ON campaigns`);
    await q.query(`DROP TRIGGER campaigns_instance_ready_on_delete ON campaigns`);
    await q.query(`DROP TRIGGER campaigns_instance_ready_on_update ON campaigns`);
    await q.query(`
      CREATE TRIGGER campaigns_instance_ready_on_insert
        AFTER INSERT ON campaigns
        FOR EACH ROW WHEN (NEW.status = 'ACTIVE' ${filter('NEW')})
        EXECUTE FUNCTION campaigns_instance_ready_changed()`);
    await q.query(`
      CREATE TRIGGER campaigns_instance_ready_on_delete
        AFTER DELETE ON campaigns
        FOR EACH ROW WHEN (OLD.status = 'ACTIVE' ${filter('OLD')})
        EXECUTE FUNCTION campaigns_instance_ready_changed()`);
    await q.query(`
      CREATE TRIGGER campaigns_instance_ready_on_update
        AFTER UPDATE OF status, next_send_at, gateway_config_id, min_interval, max_interval ON campaigns
        FOR EACH ROW
        WHEN ((OLD.status = 'ACTIVE' OR NEW.status = 'ACTIVE') ${filter('NEW')}
              AND (OLD.status IS DISTINCT FROM NEW.status
                   OR OLD.next_send_at IS DISTINCT FROM NEW.next_send_at
                   OR OLD.gateway_config_id IS DISTINCT FROM NEW.gateway_config_id
                   OR OLD.min_interval IS DISTINCT FROM NEW.min_interval
                   OR OLD.max_interval IS DISTINCT FROM NEW.max_interval))
        EXECUTE FUNCTION campaigns_instance_ready_changed()`);
  }

  /** instance_ready_at of PaceInstancesNotCampaigns, with `filter` on its campaigns `d`. */
  private async readyAt(q: QueryRunner, filter: string): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION instance_ready_at(config_id integer, last_message timestamptz, draw double precision)
      RETURNS timestamptz LANGUAGE plpgsql STABLE AS $$
      DECLARE
        ready timestamptz;
      BEGIN
        SELECT min(greatest(d.next_send_at,
                            pause_ends_at(last_message, draw, d.min_interval, d.max_interval)))
          INTO ready
          FROM campaigns d
         WHERE d.gateway_config_id = config_id AND d.status = 'ACTIVE' ${filter};
        RETURN ready;
      END $$`);
  }
}
