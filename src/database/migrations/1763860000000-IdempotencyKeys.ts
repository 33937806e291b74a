import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key of the creating routes: per company and key, the request's fingerprint,
 * whether it is still running, and the response to replay. Kept 24 hours (retention job).
 */
export class IdempotencyKeys1763860000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        company_id integer NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
        idempotency_key varchar(255) NOT NULL,
        fingerprint varchar(64) NOT NULL,
        status varchar(12) NOT NULL,
        response_status integer,
        response_body jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        PRIMARY KEY (company_id, idempotency_key),
        CONSTRAINT idempotency_keys_status_check CHECK (status IN ('IN_PROGRESS', 'DONE'))
      )`);
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
