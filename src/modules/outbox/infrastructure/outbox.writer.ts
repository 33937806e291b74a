import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute } from '../../../database/query-rows';
import { OutboxEvent, OutboxWriter } from '../application/ports/outbox.writer';

@Injectable()
export class PgOutboxWriter implements OutboxWriter {
  async append(tx: Transaction, events: OutboxEvent[]): Promise<void> {
    if (events.length === 0) {
      return;
    }
    // One statement: NOTIFY is transactional, so the wake-up still goes out only on commit.
    await execute(
      tx,
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
