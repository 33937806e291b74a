import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engine writes a campaign's lease (locked_by, locked_until) several times per message:
 * the claim, the start of each send. No index covers those columns, so PostgreSQL can write
 * the new row version beside the old one without touching the table's indexes (a HOT update)
 * when the page has room: a fifth of each page is kept free for that. Pages written before
 * this keep their fill until rewritten.
 */
export class RoomForLeaseUpdates1763960000000 implements MigrationInterface {
  name = 'RoomForLeaseUpdates1763960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns SET (fillfactor = 80)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns RESET (fillfactor)`);
  }
}
