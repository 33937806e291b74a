import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hearing back from WhatsApp through the gateway's own events:
 * - gateway_configs: delivery tracking opt-in, the hash of the secret header the gateway sends
 *   with every event, and the instance's state as its last connection.update said.
 * - campaign_contacts: when the message was delivered, read and played (never moving
 *   backwards), an error WhatsApp reported after acceptance, and an index on the message key
 *   id that receipts are matched by.
 * - campaigns: delivered, read and opted-out counts.
 * - companies: opt-out words (null: the defaults) and the confirmation text.
 * - gateway_events: events stored before they are acknowledged, processed in the background.
 */
export class GatewayEvents1763850000000 implements MigrationInterface {
  name = 'GatewayEvents1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE gateway_configs
         ADD COLUMN track_delivery boolean NOT NULL DEFAULT false,
         ADD COLUMN events_secret_hash varchar(64),
         ADD COLUMN instance_state varchar(20),
         ADD COLUMN instance_state_reason integer,
         ADD COLUMN instance_state_at timestamptz`,
    );
    await q.query(
      `ALTER TABLE campaign_contacts
         ADD COLUMN delivered_at timestamptz,
         ADD COLUMN read_at timestamptz,
         ADD COLUMN played_at timestamptz,
         ADD COLUMN delivery_error varchar(200)`,
    );
    await q.query(
      `CREATE INDEX campaign_contacts_gateway_message_id_idx ON campaign_contacts (gateway_message_id)
        WHERE gateway_message_id IS NOT NULL`,
    );
    await q.query(
      `ALTER TABLE campaigns
         ADD COLUMN delivered_contacts integer NOT NULL DEFAULT 0,
         ADD COLUMN read_contacts integer NOT NULL DEFAULT 0,
         ADD COLUMN opted_out_contacts integer NOT NULL DEFAULT 0`,
    );
    await q.query(
      `ALTER TABLE companies ADD COLUMN opt_out_words text[], ADD COLUMN opt_out_confirmation text`,
    );
    await q.query(`
      CREATE TABLE gateway_events (
        id bigserial PRIMARY KEY,
        gateway_config_id integer NOT NULL REFERENCES gateway_configs(id) ON DELETE CASCADE,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        event varchar(40) NOT NULL,
        payload jsonb NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX gateway_events_due_idx ON gateway_events (next_attempt_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_events`);
    await q.query(
      `ALTER TABLE companies DROP COLUMN opt_out_words, DROP COLUMN opt_out_confirmation`,
    );
    await q.query(
      `ALTER TABLE campaigns DROP COLUMN delivered_contacts, DROP COLUMN read_contacts,
         DROP COLUMN opted_out_contacts`,
    );
    await q.query(`DROP INDEX campaign_contacts_gateway_message_id_idx`);
    await q.query(
      `ALTER TABLE campaign_contacts DROP COLUMN delivered_at, DROP COLUMN read_at,
         DROP COLUMN played_at, DROP COLUMN delivery_error`,
    );
    await q.query(
      `ALTER TABLE gateway_configs DROP COLUMN track_delivery, DROP COLUMN events_secret_hash,
         DROP COLUMN instance_state, DROP COLUMN instance_state_reason, DROP COLUMN instance_state_at`,
    );
  }
}
