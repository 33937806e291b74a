import { MigrationInterface, QueryRunner } from 'typeorm';

const KINDS_BEFORE = `'refused_number','rejected','retries_exhausted','blocked','blank_message','unknown_outcome','unrecorded'`;

/**
 * What the number hears back (docs/ARCHITECTURE.md, "Replies, warm contacts and the reach-out
 * lock"):
 * - a message WhatsApp refused after the gateway accepted it is FAILED `not_delivered`;
 * - `contact_conversations`: when each person last wrote to each instance, keyed by
 *   phone_match_key (a Brazilian mobile with and without its ninth digit is one person);
 * - `campaign_contacts.warm`: whether the person had written to the campaign's instance within
 *   the company's window when the contact was added, or has written since (the claim's lock and
 *   warmFirst read it through campaign_contacts_pending_warm_idx); `replied_at`, the reply;
 * - the reach-out lock on the gateway configuration, and the company's thresholds.
 */
export class HearTheAnswer1763980000000 implements MigrationInterface {
  name = 'HearTheAnswer1763980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION phone_match_key(phone text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        -- A Brazilian mobile is known with and without its ninth digit (candidateJids): both
        -- forms share the key without it.
        SELECT CASE WHEN d ~ '^55[0-9]{2}9[0-9]{8}$' THEN left(d, 4) || substr(d, 6) ELSE d END
          FROM (SELECT regexp_replace(phone, '[^0-9]', '', 'g') AS d) AS digits
      $$`);
    await q.query(`
      ALTER TABLE campaign_contacts
        ADD COLUMN warm boolean NOT NULL DEFAULT false,
        ADD COLUMN replied_at timestamptz,
        DROP CONSTRAINT campaign_contacts_failure_kind_check,
        ADD CONSTRAINT campaign_contacts_failure_kind_check
          CHECK (failure_kind IN (${KINDS_BEFORE},'not_delivered'))`);
    await q.query(`
      CREATE INDEX campaign_contacts_pending_warm_idx ON campaign_contacts (campaign_id, id)
        WHERE status = 'PENDING' AND warm`);
    // The instance's last sends to cold contacts, which the refusal rule samples.
    await q.query(`
      CREATE INDEX campaign_contacts_cold_sent_idx ON campaign_contacts (campaign_id, sent_at DESC)
        WHERE sent_at IS NOT NULL AND NOT warm`);
    await q.query(`
      ALTER TABLE campaigns
        ADD COLUMN replied_contacts integer NOT NULL DEFAULT 0,
        ADD COLUMN warm_first boolean NOT NULL DEFAULT false`);
    await q.query(`
      CREATE TABLE contact_conversations (
        gateway_config_id integer NOT NULL REFERENCES gateway_configs(id) ON DELETE CASCADE,
        phone_key varchar(20) NOT NULL,
        company_id integer NOT NULL,
        last_inbound_at timestamptz NOT NULL,
        PRIMARY KEY (gateway_config_id, phone_key))`);
    await q.query(`
      ALTER TABLE gateway_configs
        ADD COLUMN reachout_lock_scope varchar(4),
        ADD COLUMN reachout_lock_cause varchar(20),
        ADD COLUMN reachout_locked_at timestamptz,
        ADD COLUMN reachout_locked_until timestamptz,
        ADD COLUMN reachout_lock_seconds integer,
        ADD CONSTRAINT gateway_configs_reachout_lock_scope_check
          CHECK (reachout_lock_scope IN ('COLD', 'ALL')),
        ADD CONSTRAINT gateway_configs_reachout_lock_until_check
          CHECK ((reachout_lock_scope IS NULL) = (reachout_locked_until IS NULL))`);
    await q.query(`
      CREATE INDEX gateway_configs_reachout_locked_idx ON gateway_configs (reachout_locked_until)
        WHERE reachout_lock_scope IS NOT NULL`);
    await q.query(`
      ALTER TABLE companies
        ADD COLUMN reach_out jsonb,
        ADD COLUMN include_reply_text boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE companies DROP COLUMN reach_out, DROP COLUMN include_reply_text`);
    await q.query(`DROP INDEX gateway_configs_reachout_locked_idx`);
    await q.query(`
      ALTER TABLE gateway_configs
        DROP CONSTRAINT gateway_configs_reachout_lock_until_check,
        DROP CONSTRAINT gateway_configs_reachout_lock_scope_check,
        DROP COLUMN reachout_lock_scope, DROP COLUMN reachout_lock_cause,
        DROP COLUMN reachout_locked_at, DROP COLUMN reachout_locked_until,
        DROP COLUMN reachout_lock_seconds`);
    await q.query(`DROP TABLE contact_conversations`);
    await q.query(`ALTER TABLE campaigns DROP COLUMN replied_contacts, DROP COLUMN warm_first`);
    await q.query(`DROP INDEX campaign_contacts_cold_sent_idx`);
    await q.query(`DROP INDEX campaign_contacts_pending_warm_idx`);
    await q.query(`
      UPDATE campaign_contacts SET status = 'SENT', failure_kind = NULL, failure_reason = NULL
       WHERE failure_kind = 'not_delivered'`);
    await q.query(`
      ALTER TABLE campaign_contacts
        DROP CONSTRAINT campaign_contacts_failure_kind_check,
        ADD CONSTRAINT campaign_contacts_failure_kind_check CHECK (failure_kind IN (${KINDS_BEFORE})),
        DROP COLUMN warm, DROP COLUMN replied_at`);
    await q.query(`DROP FUNCTION phone_match_key(text)`);
  }
}
