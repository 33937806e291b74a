import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Meta's account events (a template's status, a number's quality) wait in gateway_events
 * beside the receipts, but are leased apart, a few at a time: this index finds the due ones
 * without walking the receipts that may be waiting by the thousand.
 */
export class CloudAccountEvents1763998000000 implements MigrationInterface {
  name = 'CloudAccountEvents1763998000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX gateway_events_account_due_idx ON gateway_events (next_attempt_at, id)
        WHERE failed_at IS NULL AND event IN ('template.status', 'number.quality')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX gateway_events_account_due_idx`);
  }
}
