import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { OutboxEvent, OutboxWriter } from '../application/ports/outbox.writer';

/**
 * Appends events to the outbox inside the caller's transaction, so an event exists exactly
 * when the state change that caused it was committed. Webhook delivery reads them later.
 */
@Injectable()
export class PgOutboxWriter implements OutboxWriter {
  async append(manager: EntityManager, events: OutboxEvent[]): Promise<void> {
    if (events.length === 0) {
      return;
    }
    // One statement: NOTIFY is transactional, so the wake-up still goes out only on commit.
    await manager.query(
      `WITH appended AS (
         INSERT INTO outbox_events (company_id, campaign_id, event_type, payload)
         SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::jsonb[])
         RETURNING 1)
       SELECT pg_notify('outbox_events', '') FROM (SELECT count(*) FROM appended) AS appended_rows`,
      [
        events.map((e) => e.companyId),
        events.map((e) => e.campaignId),
        events.map((e) => e.eventType),
        events.map((e) => JSON.stringify(e.payload)),
      ],
    );
  }
}
