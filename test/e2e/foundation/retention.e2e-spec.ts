import { RETENTION_LOCK, RetentionJobs } from '../../../src/common/retention/retention-jobs';
import { importDatabase } from '../../support/automations';
import { connectedInstance } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';

/** Ids of `table` among `ids` that still exist. */
async function remaining(table: string, ids: Array<string | number>): Promise<string[]> {
  const { rows } = await db().query(`SELECT id::text FROM ${table} WHERE id = ANY($1::bigint[])`, [
    ids,
  ]);
  return rows.map((row: { id: string }) => row.id).sort();
}

async function insertedId(sql: string, params: unknown[]): Promise<string> {
  const { rows } = await db().query(`${sql} RETURNING id::text`, params);
  return rows[0].id as string;
}

describe('retention jobs', () => {
  const { t, fake } = useE2eFixture({
    env: { RETENTION_OUTBOX_EVENTS_DAYS: '7', RETENTION_NOTICES_DAYS: '90' },
  });

  it('delete each table’s finished rows past their retention, in batches, and keep live and recent ones', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const config = (
      await company
        .post('/api/gateway-configs', {
          name: 'P',
          url: fake.url,
          apiKey: gw.apiKey,
          instance: gw.instance,
        })
        .expect(201)
    ).body;
    const database = await importDatabase(company, [{ telefone: '11987650001', nome: 'Ana' }]);
    const automation = (
      await company
        .post('/api/automations', {
          name: 'Retenção',
          scheduleType: 'DAILY',
          schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo' },
          databaseConfigId: database.id,
          gatewayConfigId: config.id,
          filters: [],
          messageConfig: { type: 'TEXT', message: 'Oi' },
        })
        .expect(201)
    ).body;
    const webhook = await insertedId(
      `INSERT INTO webhooks (company_id, url, events, is_active, secret_encrypted, created_at, updated_at)
       VALUES ($1, 'https://203.0.113.10/h', '{campaign.completed}', false, 'x', now(), now())`,
      [company.id],
    );
    const event = (age: string): Promise<string> =>
      insertedId(
        `INSERT INTO outbox_events (company_id, event_type, payload, created_at)
         VALUES ($1, 'campaign.completed', '{}', now() - $2::interval)`,
        [company.id, age],
      );
    const delivery = (eventId: string, status: string, age: string): Promise<string> =>
      insertedId(
        `INSERT INTO webhook_deliveries (company_id, webhook_id, outbox_event_id, event_type, status, finished_at, created_at)
         VALUES ($1, $2, $3, 'campaign.completed', $4::text,
                 CASE WHEN $4::text IN ('DELIVERED','FAILED') THEN now() - $5::interval END,
                 now() - $5::interval)`,
        [company.id, webhook, eventId, status, age],
      );
    const oldEventNoDelivery = await event('8 days');
    const recentEvent = await event('1 day');
    const oldEventOldDelivery = await event('40 days');
    const oldEventPendingDelivery = await event('40 days');
    const oldDelivery = await delivery(oldEventOldDelivery, 'DELIVERED', '31 days');
    const pendingDelivery = await delivery(oldEventPendingDelivery, 'PENDING', '40 days');
    const recentDelivery = await delivery(recentEvent, 'FAILED', '2 days');

    const notice = (status: string, age: string): Promise<string> =>
      insertedId(
        `INSERT INTO notices (company_id, gateway_config_id, phone_number, text, reason, status, created_at)
         VALUES ($1, $2, '5511987650001', 'x', 'test', $3, now() - $4::interval)`,
        [company.id, config.id, status, age],
      );
    const oldNotice = await notice('SENT', '91 days');
    const oldPendingNotice = await notice('PENDING', '91 days');
    const recentNotice = await notice('FAILED', '10 days');

    const run = (status: string, age: string): Promise<string> =>
      insertedId(
        `INSERT INTO automation_runs (automation_id, company_id, status, trigger, started_at)
         VALUES ($1, $2, $3, 'SCHEDULE', now() - $4::interval)`,
        [automation.id, company.id, status, age],
      );
    const oldRun = await run('COMPLETED', '100 days');
    const runningRun = await run('RUNNING', '100 days');
    const recentRun = await run('FAILED', '5 days');

    const failure = (age: string): Promise<string> =>
      insertedId(
        `INSERT INTO login_failures (email, ip, failed_at) VALUES ('x@teste.com.br', '127.0.0.1', now() - $1::interval)`,
        [age],
      );
    const oldFailure = await failure('2 days');
    const recentFailure = await failure('1 hour');

    const job = (status: string, age: string): Promise<string> =>
      insertedId(
        `INSERT INTO contact_import_jobs (company_id, kind, status, total_rows, submitted_at, finished_at)
         VALUES ($1, 'CONTACTS', $2::text, 1, now() - $3::interval,
                 CASE WHEN $2::text IN ('COMPLETED','FAILED') THEN now() - $3::interval END)`,
        [company.id, status, age],
      );
    const oldJob = await job('COMPLETED', '31 days');
    const oldPendingJob = await job('PENDING', '31 days');
    const recentJob = await job('FAILED', '3 days');

    await db().query(
      `INSERT INTO idempotency_keys (company_id, idempotency_key, fingerprint, status, created_at)
       VALUES ($1, 'velha', 'f', 'DONE', now() - interval '25 hours'), ($1, 'nova', 'f', 'DONE', now())`,
      [company.id],
    );

    const deleted = await t.app.get(RetentionJobs).runOnce();
    expect(deleted).not.toBeNull();

    expect(
      await remaining('webhook_deliveries', [oldDelivery, pendingDelivery, recentDelivery]),
    ).toEqual([pendingDelivery, recentDelivery].sort());
    // An event goes once no delivery points at it (its own retention, then the deliveries').
    expect(
      await remaining('outbox_events', [
        oldEventNoDelivery,
        recentEvent,
        oldEventOldDelivery,
        oldEventPendingDelivery,
      ]),
    ).toEqual([recentEvent, oldEventPendingDelivery].sort());
    expect(await remaining('notices', [oldNotice, oldPendingNotice, recentNotice])).toEqual(
      [oldPendingNotice, recentNotice].sort(),
    );
    expect(await remaining('automation_runs', [oldRun, runningRun, recentRun])).toEqual(
      [runningRun, recentRun].sort(),
    );
    expect(await remaining('login_failures', [oldFailure, recentFailure])).toEqual([recentFailure]);
    expect(await remaining('contact_import_jobs', [oldJob, oldPendingJob, recentJob])).toEqual(
      [oldPendingJob, recentJob].sort(),
    );
    const { rows: keys } = await db().query(
      `SELECT idempotency_key FROM idempotency_keys WHERE company_id = $1`,
      [company.id],
    );
    expect(keys).toEqual([{ idempotency_key: 'nova' }]);
  });

  it('runs on one instance at a time: another holding the lock makes it skip its turn', async () => {
    const jobs = t.app.get(RetentionJobs);
    const other = await db().connect();
    try {
      await other.query(`SELECT pg_advisory_lock($1)`, [RETENTION_LOCK]);
      expect(await jobs.runOnce()).toBeNull();
      await other.query(`SELECT pg_advisory_unlock($1)`, [RETENTION_LOCK]);
      expect(await jobs.runOnce()).not.toBeNull();
    } finally {
      other.release();
    }
  });
});
