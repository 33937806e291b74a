import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A second kind of gateway: a number of Meta's WhatsApp Cloud API (docs/ARCHITECTURE.md, "Two
 * providers behind one port"). A Cloud API configuration keeps the columns every configuration
 * has, read its own way: `url` is the Graph API's base, `instance` the phone number id (so
 * pacing, limits, conversations and events keyed by the configuration work unchanged) and
 * `api_key_encrypted` the access token. Its own columns:
 * - the business account (templates live there), the Graph API version, the app secret that
 *   signs Meta's webhooks (sealed like API keys) and the token Meta's webhook verification
 *   echoes;
 * - what Meta says of the number (display number, verified name, quality rating, messaging
 *   limit tier), as last read or reported;
 * - the messages a second the number may send (Meta's throughput; null: the default).
 * `gateway_templates` holds the business account's message templates as last read from Meta.
 */
export class CloudApiProvider1763997000000 implements MigrationInterface {
  name = 'CloudApiProvider1763997000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE gateway_configs
        ADD COLUMN provider varchar(12) NOT NULL DEFAULT 'EVOLUTION',
        ADD COLUMN business_account_id varchar(64),
        ADD COLUMN api_version varchar(10),
        ADD COLUMN app_secret_encrypted text,
        ADD COLUMN webhook_verify_token varchar(64),
        ADD COLUMN display_phone_number varchar(32),
        ADD COLUMN verified_name varchar(200),
        ADD COLUMN quality_rating varchar(10),
        ADD COLUMN messaging_limit_tier varchar(30),
        ADD COLUMN number_checked_at timestamptz,
        ADD COLUMN throughput_per_second integer,
        ADD CONSTRAINT gateway_configs_provider_check CHECK (provider IN ('EVOLUTION', 'CLOUD_API')),
        ADD CONSTRAINT gateway_configs_cloud_api_check CHECK (
          provider = 'EVOLUTION' OR (business_account_id IS NOT NULL AND api_version IS NOT NULL
            AND app_secret_encrypted IS NOT NULL AND webhook_verify_token IS NOT NULL)),
        ADD CONSTRAINT gateway_configs_throughput_check CHECK (throughput_per_second > 0)`);
    // Meta's webhooks name the number they are about: a company's events are routed by it.
    await q.query(`
      CREATE INDEX gateway_configs_cloud_number_idx ON gateway_configs (company_id, instance)
        WHERE provider = 'CLOUD_API'`);
    await q.query(`
      CREATE TABLE gateway_templates (
        id serial PRIMARY KEY,
        gateway_config_id integer NOT NULL REFERENCES gateway_configs(id) ON DELETE CASCADE,
        company_id integer NOT NULL,
        meta_id varchar(64) NOT NULL,
        name varchar(512) NOT NULL,
        language varchar(15) NOT NULL,
        category varchar(20) NOT NULL,
        status varchar(20) NOT NULL,
        components jsonb NOT NULL,
        body_parameters integer NOT NULL,
        header_parameters integer NOT NULL,
        header_format varchar(10),
        refreshed_at timestamptz NOT NULL,
        UNIQUE (gateway_config_id, name, language))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_templates`);
    await q.query(`DROP INDEX gateway_configs_cloud_number_idx`);
    await q.query(`
      ALTER TABLE gateway_configs
        DROP CONSTRAINT gateway_configs_throughput_check,
        DROP CONSTRAINT gateway_configs_cloud_api_check,
        DROP CONSTRAINT gateway_configs_provider_check,
        DROP COLUMN provider, DROP COLUMN business_account_id, DROP COLUMN api_version,
        DROP COLUMN app_secret_encrypted, DROP COLUMN webhook_verify_token,
        DROP COLUMN display_phone_number, DROP COLUMN verified_name, DROP COLUMN quality_rating,
        DROP COLUMN messaging_limit_tier, DROP COLUMN number_checked_at,
        DROP COLUMN throughput_per_second`);
  }
}
