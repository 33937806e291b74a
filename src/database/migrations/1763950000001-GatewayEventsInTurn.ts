import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Receipts and replies are claimed per company in turn: the claim walks the companies with
 * pending events (one probe each) and takes each one's due events in order, both through this
 * index, so that one company's flood costs the others nothing but its share of a batch.
 */
export class GatewayEventsInTurn1763950000001 implements MigrationInterface {
  name = 'GatewayEventsInTurn1763950000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX gateway_events_company_due_idx
         ON gateway_events (company_id, next_attempt_at, id)
        WHERE failed_at IS NULL AND event <> 'connection.update'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX gateway_events_company_due_idx`);
  }
}
