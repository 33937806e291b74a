import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';
import { WorkerProcess } from '../../support/worker-process';

/**
 * A worker process stopped by a signal while a message is in flight (the gateway answers
 * slowly): the send ends and is recorded, the campaign is handed back, the process exits 0.
 */
const SLOW_GATEWAY_MS = 3_000;
const FAST_RECONCILE = { RECONCILE_DELAYS_MS: '300,1500' };

interface ContactRow {
  phone_number: string;
  status: string;
}

describe('graceful stop of a worker process', () => {
  const { t, fake, startWorker } = useE2eFixture({
    role: 'api',
    noRefusals: true,
    resetFake: true,
  });

  async function contactRows(campaignId: number): Promise<ContactRow[]> {
    const { rows } = await db().query(
      `SELECT phone_number, status FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [campaignId],
    );
    return rows;
  }

  async function lease(campaignId: number): Promise<Record<string, unknown>> {
    const { rows } = await db().query(
      `SELECT status, locked_by, locked_until FROM campaigns WHERE id = $1`,
      [campaignId],
    );
    return rows[0];
  }

  /** The first message to `instance` the fake gateway received. */
  async function firstSendTo(instance: string): Promise<string> {
    for (let seen = 1; ; seen += 1) {
      const sent = await fake.waitForSent(seen, 30_000);
      const ours = sent.find((s) => s.instance === instance);
      if (ours) {
        return ours.number;
      }
    }
  }

  /**
   * A campaign of `count` contacts at zero intervals, created before the worker starts (the
   * slow gateway would slow creation's own checks too), then its first message held by the
   * gateway for `gatewayDelayMs`.
   */
  async function campaignWithSendInFlight(
    count: number,
    firstPhone: number,
    gatewayDelayMs: number,
    workerEnv: Record<string, string> = {},
  ): Promise<{
    company: TestCompany;
    campaignId: number;
    instance: string;
    inFlight: string;
    worker: WorkerProcess;
  }> {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const body = campaignBody(fake, gw, { contacts: phones(count, firstPhone) });
    const campaignId = (await company.post('/api/campaigns', body).expect(200)).body.id as number;
    fake.setResponseDelay(gatewayDelayMs);
    const worker = await startWorker(workerEnv);
    const inFlight = await firstSendTo(gw.instance);
    // The SENDING mark is committed before the gateway call: the signal comes mid-send.
    const { rows } = await db().query(
      `SELECT status FROM campaign_contacts WHERE campaign_id = $1 AND phone_number = $2`,
      [campaignId, inFlight],
    );
    expect(rows).toEqual([{ status: 'SENDING' }]);
    return { company, campaignId, instance: gw.instance, inFlight, worker };
  }

  it('on SIGTERM mid-send records the send, releases the lease, sends nothing more and exits 0', async () => {
    const { company, campaignId, instance, inFlight, worker } = await campaignWithSendInFlight(
      5,
      7000,
      SLOW_GATEWAY_MS,
    );

    const exit = await worker.stop('SIGTERM');
    const exitedAt = new Date();

    expect(exit).toEqual({ code: 0, signal: null });
    expect(worker.output()).toContain('Stopped cleanly');
    const rows = await contactRows(campaignId);
    expect(rows.filter((r) => r.status === 'SENDING')).toEqual([]);
    expect(rows.find((r) => r.phone_number === inFlight)?.status).toBe('SENT');
    expect(rows.filter((r) => r.status === 'SENT')).toHaveLength(1);
    expect(rows.filter((r) => r.status === 'PENDING')).toHaveLength(4);
    expect(await lease(campaignId)).toEqual({
      status: 'ACTIVE',
      locked_by: null,
      locked_until: null,
    });
    const received = fake.sent.filter((s) => s.instance === instance);
    expect(received.map((s) => s.number)).toEqual([inFlight]);
    expect(received.every((s) => s.at <= exitedAt)).toBe(true);
    // Not left for the next tests' workers.
    await company.put(`/api/campaigns/${campaignId}/cancel`).expect(200);
  });

  it('after SIGINT mid-send, another worker sends the rest at once, with no takeover and no contact messaged twice', async () => {
    const contacts = phones(6, 8000);
    const { company, campaignId, instance, worker } = await campaignWithSendInFlight(
      6,
      8000,
      SLOW_GATEWAY_MS,
      { DISPATCH_LEASE_SECONDS: '120' },
    );

    expect(await worker.stop('SIGINT')).toEqual({ code: 0, signal: null });
    fake.setResponseDelay(0);
    const second = await startWorker({ DISPATCH_LEASE_SECONDS: '120' });
    const done = await waitForCampaign(company, campaignId, (c) => c.status === 'COMPLETED');

    expect(done).toMatchObject({ sentContacts: 6, failedContacts: 0 });
    const perPhone = contacts.map(
      (c) => fake.sentTo(c.phoneNumber).filter((s) => s.instance === instance).length,
    );
    expect(perPhone).toEqual([1, 1, 1, 1, 1, 1]);
    // The lease was given back: nothing was taken over from a dead holder, nothing doubted.
    expect(second.output()).not.toContain('Taking over the campaigns of a worker that died');
    expect(second.output()).not.toContain('Contacts left SENDING by another worker');
  });

  it('past SHUTDOWN_GRACE_MS exits non-zero, and the send it left is reconciled by the next worker, never repeated', async () => {
    const contacts = phones(3, 9000);
    const { company, campaignId, instance, inFlight, worker } = await campaignWithSendInFlight(
      3,
      9000,
      20_000,
      { SHUTDOWN_GRACE_MS: '1000', ...FAST_RECONCILE },
    );

    const exit = await worker.stop('SIGTERM');

    expect(exit).toEqual({ code: 1, signal: null });
    expect(worker.output()).toContain('Grace period over');
    expect((await contactRows(campaignId)).find((r) => r.phone_number === inFlight)?.status).toBe(
      'SENDING',
    );
    fake.setResponseDelay(0);
    await startWorker(FAST_RECONCILE);
    const done = await waitForCampaign(company, campaignId, (c) => c.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 3, failedContacts: 0 });
    const perPhone = contacts.map(
      (c) => fake.sentTo(c.phoneNumber).filter((s) => s.instance === instance).length,
    );
    expect(perPhone).toEqual([1, 1, 1]);
  });
});
