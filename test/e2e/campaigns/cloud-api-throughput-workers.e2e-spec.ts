import { phones, waitForCampaign } from '../../support/campaigns';
import { CLOUD_WABA_ID, cloudApiConfig } from '../../support/cloud-api-configs';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { FakeGraphApi } from '../../support/fake-graph-api';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/** Uncertain sends are looked at again at once, and given up on soon. */
const FAST_RECONCILE = { RECONCILE_DELAYS_MS: '300,1500' };

/**
 * A turn at a Cloud API number's throughput keeps many messages in flight at once: a worker
 * killed in the middle of one leaves a second's worth of contacts SENDING, some of which Meta
 * took. In real service processes, killed like in production.
 */
describe('Cloud API turns across a kill -9', () => {
  const graph = new FakeGraphApi();
  const { t, startWorker } = useE2eFixture({
    role: 'api',
    servers: [graph],
    noRefusals: true,
    resetFake: true,
  });

  it('every contact ends with at most one message, SENT or FAILED as unknown, never sent twice', async () => {
    graph.addTemplate(CLOUD_WABA_ID, {
      name: 'aviso_de_entrega',
      language: 'pt_BR',
      status: 'APPROVED',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Oi {{1}}' }],
    });
    const company = await TestCompany.register(t.http);
    const configId = await cloudApiConfig(company, graph);
    const contacts = phones(200, 9_000);
    // Meta answers each of them 400 ms late: about 30 are in flight at 80 a second.
    for (const _contact of contacts) {
      graph.delayNextSend(400);
    }
    const template = {
      name: 'aviso_de_entrega',
      language: 'pt_BR',
      bodyParameters: ['{PrimeiroNome}'],
    };
    const created = (
      await company
        .post('/api/campaigns', { name: 'Entrega', gatewayConfigId: configId, template, contacts })
        .expect(200)
    ).body;

    const first = await startWorker({ DISPATCH_LEASE_SECONDS: '3', ...FAST_RECONCILE });
    await until(
      () =>
        graph.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages')).length,
      (sends) => sends >= 60,
      60_000,
      'sends under way before the kill',
    );
    await first.kill9();
    const takenBeforeKill = (
      await db().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = $1 AND status <> 'PENDING'`,
        [created.id],
      )
    ).rows[0].n;
    expect(takenBeforeKill).toBeLessThan(contacts.length);

    await startWorker({ DISPATCH_LEASE_SECONDS: '3', ...FAST_RECONCILE });
    const done = await waitForCampaign(
      company,
      created.id,
      (c) => c.status === 'COMPLETED',
      90_000,
    );

    const received = new Map<string, number>();
    for (const message of graph.sent) {
      received.set(message.to, (received.get(message.to) ?? 0) + 1);
    }
    expect([...received.values()].every((count) => count === 1)).toBe(true);
    const { rows } = await db().query<{
      phone_number: string;
      status: string;
      failure_kind: string | null;
    }>(`SELECT phone_number, status, failure_kind FROM campaign_contacts WHERE campaign_id = $1`, [
      created.id,
    ]);
    expect(rows).toHaveLength(contacts.length);
    for (const row of rows) {
      if (row.status === 'SENT') {
        expect(received.get(row.phone_number)).toBe(1);
      } else {
        // Taken before the kill: Meta may have it, so it is never sent again.
        expect([row.status, row.failure_kind]).toEqual(['FAILED', 'unknown_outcome']);
      }
    }
    expect(done.sentContacts + done.failedContacts).toBe(contacts.length);
    expect(done.failedContacts).toBeGreaterThan(0);
  });
});
