import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1763800000000 implements MigrationInterface {
  name = 'CreateWebhooks1763800000000';

  async up(q: QueryRunner): Promise<void> {
    // One webhook per company (docs/API-RULES.md §9: /api/companies/{companyId}/webhook).
    await q.query(`
      CREATE TABLE webhooks (
        id serial PRIMARY KEY,
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        url varchar(2000) NOT NULL,
        events text[] NOT NULL,
        is_active boolean NOT NULL,
        -- SecretBox text of the whsec_ secret; the previous one keeps signing for a grace period
        -- after a rotation, so that receivers can switch secrets without losing an event.
        secret_encrypted text NOT NULL,
        previous_secret_encrypted text,
        previous_secret_expires_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT webhooks_events_check CHECK (cardinality(events) > 0)
      )`);
    await q.query(`CREATE UNIQUE INDEX webhooks_company_key ON webhooks (company_id)`);

    // One row per (event, webhook): the unit of delivery, retried until DELIVERED or FAILED.
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL,
        webhook_id integer NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        outbox_event_id bigint NOT NULL REFERENCES outbox_events(id) ON DELETE CASCADE,
        event_type varchar(50) NOT NULL,
        campaign_id integer,
        status varchar(10) NOT NULL DEFAULT 'PENDING',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        attempt_started_at timestamptz,
        locked_until timestamptz,
        last_status_code integer,
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        finished_at timestamptz,
        CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('PENDING','SENDING','DELIVERED','FAILED'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX webhook_deliveries_event_key ON webhook_deliveries (webhook_id, outbox_event_id)`,
    );
    // The worker's claim: due deliveries, oldest first.
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, id) WHERE status = 'PENDING'`,
    );
    // Per-campaign order: is an earlier event of the same campaign still unfinished?
    await q.query(
      `CREATE INDEX webhook_deliveries_chain_idx ON webhook_deliveries (webhook_id, campaign_id, outbox_event_id)
        WHERE status IN ('PENDING','SENDING')`,
    );
    // Deliveries waiting for the earlier event of their campaign (see the trigger below).
    await q.query(
      `CREATE INDEX webhook_deliveries_waiting_idx ON webhook_deliveries (created_at)
        WHERE status = 'PENDING' AND next_attempt_at = 'infinity'`,
    );
    // Attempts left in flight by a dead worker.
    await q.query(
      `CREATE INDEX webhook_deliveries_sending_idx ON webhook_deliveries (locked_until) WHERE status = 'SENDING'`,
    );
    // The delivery log: newest first, optionally for one campaign.
    await q.query(
      `CREATE INDEX webhook_deliveries_company_idx ON webhook_deliveries (company_id, id DESC)`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_company_campaign_idx ON webhook_deliveries (company_id, campaign_id, id DESC)`,
    );

    // Every attempt, as it happened: the delivery row keeps only the last one.
    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        company_id integer NOT NULL,
        delivery_id bigint NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer,
        status_code integer,
        error varchar(500)
      )`);
    await q.query(
      `CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, attempt)`,
    );

    // Fan-out in the transaction that writes the event (the OutboxWriter's): a delivery exists
    // exactly when its event was committed, whichever code path wrote the event, so no cursor
    // can skip an event whose transaction committed late.
    // Per-campaign order is guarded by the claim (nothing goes while an earlier delivery of the
    // same webhook and campaign is unfinished). To keep the claim from scanning deliveries that
    // must wait, a new delivery waits with next_attempt_at = 'infinity' when one before it is
    // still PENDING (the worker makes the next one due when it finishes one); it is due at once
    // when the chain is empty or only an attempt is in flight (SENDING). That attempt may end
    // before this transaction commits, without seeing this row: leaving the row due avoids the
    // missed hand-over, and the claim skips it while the attempt lasts. (A row that waits when
    // it need not, from a rarer race, is made due by the worker's periodic check.)
    await q.query(`
      CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO webhook_deliveries
               (company_id, webhook_id, outbox_event_id, event_type, campaign_id, next_attempt_at)
        SELECT e.company_id, w.id, e.id, e.event_type, e.campaign_id,
               CASE WHEN e.campaign_id IS NULL THEN now()
                    WHEN row_number() OVER (PARTITION BY w.id, e.campaign_id ORDER BY e.id) = 1
                         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                                          WHERE p.webhook_id = w.id AND p.campaign_id = e.campaign_id
                                            AND p.status = 'PENDING')
                    THEN now()
                    ELSE 'infinity'::timestamptz END
          FROM new_events e
          JOIN webhooks w ON w.company_id = e.company_id AND w.is_active AND e.event_type = ANY (w.events)
         ORDER BY e.id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER outbox_events_webhook_fan_out AFTER INSERT ON outbox_events
        REFERENCING NEW TABLE AS new_events
        FOR EACH STATEMENT EXECUTE FUNCTION webhook_fan_out()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER outbox_events_webhook_fan_out ON outbox_events`);
    await q.query(`DROP FUNCTION webhook_fan_out()`);
    await q.query(`DROP TABLE webhook_delivery_attempts`);
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
  }
}
