import { Automation } from './modules/automations/domain/automation.entity';
import { BlockedContact } from './modules/blocked-contacts/domain/blocked-contact.entity';
import { Campaign } from './modules/campaigns/domain/campaign.entity';
import { AccessToken } from './modules/auth/domain/access-token.entity';
import { Company } from './modules/auth/domain/company.entity';
import { CompanySubscription } from './modules/auth/domain/company-subscription.entity';
import { GatewayConfig } from './modules/gateway/domain/gateway-config.entity';
import { ImportJob } from './modules/imports/domain/import-job.entity';
import { UserDatabase } from './modules/user-databases/domain/user-database.entity';
import { Webhook } from './modules/webhooks/domain/webhook.entity';

/**
 * Every TypeORM entity; the data source of the app and of the CLI both read this list.
 *
 * Each entity maps every column of its table with the default, indexes, CHECK, UNIQUE and
 * foreign-key constraints of the migrations, so that `npm run migration:generate` on a migrated
 * database finds nothing to change (test/e2e/foundation/schema-matches-entities.e2e-spec.ts).
 * Indexes TypeORM cannot describe (partial, descending, expression, GIN) are declared by name
 * with `synchronize: false`: the migration defines them, TypeORM keeps them. CHECK constraints
 * are compared by name only. Columns only the repositories' SQL writes (leases, clocks) are
 * mapped with select/insert/update false, so saving an entity never overwrites them.
 */
export const ENTITIES = [
  Company,
  CompanySubscription,
  AccessToken,
  BlockedContact,
  GatewayConfig,
  Campaign,
  Automation,
  UserDatabase,
  ImportJob,
  Webhook,
];

/**
 * The tables that are deliberately not entities: they are written and read only by set-based
 * SQL in their repositories (batches, claims with SKIP LOCKED, upserts, triggers), never as
 * one object loaded and saved. TypeORM's schema builder ignores a table without an entity,
 * so `migration:generate` leaves them alone; their migrations are their only definition.
 * The schema test fails on a table that is in neither list, so a new one is never forgotten.
 * (TypeORM's own `migrations` table is neither.)
 */
export const TABLES_WITHOUT_ENTITIES: readonly string[] = [
  // Failed logins per e-mail and IP, counted and pruned in SQL (auth).
  'login_failures',
  // Idempotency-Key records: inserted ON CONFLICT, completed, expired by the retention job.
  'idempotency_keys',
  // One row per phone per campaign, claimed and updated in batches by the engine.
  'campaign_contacts',
  // Events written in the sender's transaction; a trigger fans them out to webhook_deliveries.
  'outbox_events',
  // WhatsApp notices to a company's own phone: deduplicated inserts, a claim-and-retry queue.
  'notices',
  // Webhook deliveries and the log of their attempts: the webhook worker's queue.
  'webhook_deliveries',
  'webhook_delivery_attempts',
  // A contact database's rows (JSONB values), written in bulk batches and upserts.
  'user_database_records',
  // The per-database index jobs of the background index worker (claim with a lease).
  'user_database_indexes',
  // Automation runs (one RUNNING at a time, by a unique index) and their sent-phone log.
  'automation_runs',
  'automation_sent_log',
  // A Cloud API number's people per 10 minutes, counted by a trigger, summed by the claim.
  'instance_recipients',
  // Gateway events stored before they are acknowledged, processed in background batches.
  'gateway_events',
  // When each configuration's connection events were last applied: the coalescing window.
  'gateway_connection_windows',
  // When each person last wrote to each instance (warm contacts): upserts from inbound events.
  'contact_conversations',
  // The number that last sent to each person of a company (sticky senders): feed upserts.
  'contact_senders',
  // Each gateway instance's pace, hold and count of the day: the engine's hot one-statement updates.
  'instance_pacing',
  // Deleted campaigns: their contacts' batched removal, and what the creation limit still counts.
  'campaign_deletions',
  // A Cloud API business account's message templates as Meta last listed them: replaced whole.
  'gateway_templates',
  // Where the SYSTEM-contacts feed stands in the sends' commit order: one row, moved by its batches.
  'system_contacts_feed_position',
];
