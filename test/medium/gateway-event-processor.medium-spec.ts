import type { Pool, PoolClient } from 'pg';
import {
  GATHER_MS,
  GatewayEventProcessor,
  STEP_EVENTS,
} from '../../src/modules/gateway-events/application/gateway-event-processor';
import { sqlPool } from '../support/db';
import { FakeEvolutionApi } from '../support/fake-evolution-api';
import { trackedConfig } from '../support/gateway-events';
import { startAppOn, TestApp, TestCompany } from '../support/test-app';
import { createDedicatedDatabase } from '../e2e/foundation/helpers/databases';

/**
 * The event processor one step at a time, against real PostgreSQL: an app that runs no workers
 * (ROLE=api) on a database of its own, so that only the test's steps take the events. What a
 * step answers is how long its loop waits before the next one (a NOTIFY from the intake still
 * wakes it sooner).
 */
describe('GatewayEventProcessor, step by step', () => {
  const fake = new FakeEvolutionApi();
  let database: { url: string; drop(): Promise<void> };
  let t: TestApp;
  let pool: Pool;
  let step: () => Promise<number | null>;
  let config: { id: number; companyId: number };

  beforeAll(async () => {
    database = await createDedicatedDatabase('event_processor_medium');
    await fake.start();
    t = await startAppOn(database.url, { ROLE: 'api', PUBLIC_BASE_URL: 'http://127.0.0.1:9' });
    pool = sqlPool(database.url, 2);
    const processor = t.app.get(GatewayEventProcessor);
    // step() is the loop's to call (protected); the test runs it by hand.
    step = () => processor['step']();
    const company = await TestCompany.register(t.http);
    config = { id: (await trackedConfig(company, fake)).id, companyId: company.id };
  });
  beforeEach(() => pool.query('DELETE FROM gateway_events'));
  afterAll(async () => {
    await t.close();
    await pool.end();
    await fake.stop();
    await database.drop();
  });

  /** `count` delivery receipts for messages nobody sent (they wait and are tried again). */
  async function storeReceipts(count: number): Promise<string[]> {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO gateway_events (gateway_config_id, company_id, event, payload)
       SELECT $1, $2, 'messages.update',
              jsonb_build_object('data', jsonb_build_object('keyId', 'unknown-' || n, 'fromMe', true,
                                                            'status', 'DELIVERY_ACK'),
                                 'at', now())
         FROM generate_series(1, $3::int) AS n
       RETURNING id`,
      [config.id, config.companyId, count],
    );
    return rows.map((row) => row.id);
  }

  /** Events the processor took and set to be tried again (their receipts' messages are unknown). */
  async function takenIds(): Promise<string[]> {
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id FROM gateway_events WHERE attempts > 0 OR next_attempt_at > now() ORDER BY id`,
    );
    return rows.map((row) => row.id);
  }

  it('goes on at once after a full batch', async () => {
    const ids = await storeReceipts(STEP_EVENTS + 1);
    expect(await step()).toBe(0);
    expect(await takenIds()).toEqual(ids.slice(0, STEP_EVENTS));
  });

  it('after a partial batch, waits for the next announcement even with events due meanwhile', async () => {
    const [arrivedDuringStep, ...ids] = await storeReceipts(4);
    // An event due now that the step cannot take: stored while it ran (here, locked meanwhile).
    const other: PoolClient = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM gateway_events WHERE id = $1 FOR UPDATE', [
        arrivedDuringStep,
      ]);
      expect(await step()).toBe(GATHER_MS);
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
    expect(await takenIds()).toEqual(ids);
  });

  it('sleeps until the next due event when it took none', async () => {
    await pool.query(
      `INSERT INTO gateway_events (gateway_config_id, company_id, event, payload, next_attempt_at)
       VALUES ($1, $2, 'messages.update', '{"data": {"keyId": "later", "status": "READ"}}',
               now() + interval '30 seconds')`,
      [config.id, config.companyId],
    );
    const wait = await step();
    expect(wait).toBeGreaterThan(GATHER_MS);
    expect(wait).toBeLessThanOrEqual(30_000);
  });
});
