import {
  importDatabase,
  runEnded,
  runNowAndWait,
  welcomeAutomationBody,
} from '../../support/automations';
import { connectedConfig, phones } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import type { FakeEvolutionApi, FakeSentMessage } from '../../support/fake-evolution-api';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

type Sender = { id: number; instance: string };

/** The phone a message went to, as the record's number (the fake records the JID's digits). */
function phoneOf(message: FakeSentMessage): string {
  return message.number.replace(/\D/g, '');
}

/** How many messages each instance sent. */
function sentPerInstance(fake: FakeEvolutionApi): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of fake.sent) {
    counts.set(message.instance, (counts.get(message.instance) ?? 0) + 1);
  }
  return counts;
}

/** The welcome automation, on the pool `configIds`. */
function poolBody(
  databaseConfigId: number,
  configIds: unknown,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return welcomeAutomationBody(databaseConfigId, { gatewayConfigIds: configIds }, overrides);
}

describe('an automation on a pool of senders', () => {
  const { t, fake } = useE2eFixture({ noRefusals: true, resetFake: true });

  /** A new company with three connected numbers and a database of `count` records. */
  async function setUp(
    count: number,
    start: number,
  ): Promise<{
    company: TestCompany;
    senders: Sender[];
    ids: number[];
    databaseId: number;
    phones: string[];
  }> {
    const company = await TestCompany.register(t.http);
    const senders: Sender[] = [];
    for (let i = 0; i < 3; i += 1) {
      const config = await connectedConfig(company, fake);
      senders.push({ id: config.id, instance: config.gw.instance });
    }
    const records = phones(count, start);
    const database = await importDatabase(
      company,
      records.map((r) => ({ telefone: r.phoneNumber, nome: r.name })),
    );
    return {
      company,
      senders,
      ids: senders.map((s) => s.id),
      databaseId: database.id,
      phones: records.map((r) => r.phoneNumber),
    };
  }

  async function createAutomation(
    company: TestCompany,
    body: Record<string, unknown>,
  ): Promise<Record<string, any>> {
    return (await company.post('/api/automations', body).expect(201)).body;
  }

  it('sends every record once, spread over its three numbers, and its run counts the senders as they send', async () => {
    const { company, senders, ids, databaseId, phones: recordPhones } = await setUp(30, 11_000);
    const automation = await createAutomation(
      company,
      poolBody(databaseId, ids, { intervalMinSeconds: 1, intervalMaxSeconds: 1 }),
    );
    expect(automation).toMatchObject({ gatewayConfigId: ids[0], gatewayConfigIds: ids });
    expect((await company.get(`/api/automations/${automation.id}`).expect(200)).body).toEqual(
      automation,
    );

    const started = await company.post(`/api/automations/${automation.id}/run-now`).expect(202);
    // While it runs, the pool's own row counts nothing: the figures are the senders' sums.
    const live = await until(
      async () => (await company.get(`/api/automations/${automation.id}/runs`)).body[0],
      (run) => run.status !== 'RUNNING' || run.sent >= 3,
      20_000,
      'sends counted while the run is RUNNING',
    );
    expect(live).toMatchObject({ id: started.body.id, status: 'RUNNING' });
    expect(live.sent).toBeLessThanOrEqual(fake.sent.length);

    const done = await runEnded(company, automation.id, started.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', matchedRecords: 30, sent: 30, failed: 0 });
    const sentPhones = fake.sent.map(phoneOf);
    expect(sentPhones.sort()).toEqual([...recordPhones].sort());
    expect(sentPerInstance(fake)).toEqual(new Map(senders.map((s) => [s.instance, 10])));
  });

  it('keeps each person on the number that served them before, run after run, whatever the order of the pool', async () => {
    const { company, ids, databaseId, phones: recordPhones } = await setUp(12, 12_000);
    const automation = await createAutomation(
      company,
      poolBody(databaseId, ids, { dedupStrategy: 'NEVER' }),
    );
    expect(await runNowAndWait(company, automation.id)).toMatchObject({
      status: 'COMPLETED',
      sent: 12,
    });
    const before = new Map(fake.sent.map((m) => [phoneOf(m), m.instance]));
    expect(new Set(before.values()).size).toBe(3);
    await sendersRecorded(company, recordPhones);

    const reversed = [...ids].reverse();
    const updated = await company
      .put(`/api/automations/${automation.id}`, { gatewayConfigIds: reversed })
      .expect(200);
    expect(updated.body).toMatchObject({
      gatewayConfigId: reversed[0],
      gatewayConfigIds: reversed,
    });
    fake.sent.length = 0;
    expect(await runNowAndWait(company, automation.id)).toMatchObject({
      status: 'COMPLETED',
      sent: 12,
    });
    expect(fake.sent.map((m) => [phoneOf(m), m.instance]).sort()).toEqual([...before].sort());
  });

  it('goes back to one number when a person clears the pool', async () => {
    const { company, senders, ids, databaseId } = await setUp(4, 13_000);
    const automation = await createAutomation(company, poolBody(databaseId, ids));
    const updated = await company
      .put(`/api/automations/${automation.id}`, { gatewayConfigIds: null })
      .expect(200);
    expect(updated.body).toMatchObject({
      gatewayConfigId: senders[0].id,
      gatewayConfigIds: [senders[0].id],
    });
    expect(await runNowAndWait(company, automation.id)).toMatchObject({
      status: 'COMPLETED',
      sent: 4,
    });
    expect(sentPerInstance(fake)).toEqual(new Map([[senders[0].instance, 4]]));
  });

  it('keeps every number of the pool of an active automation from being deleted', async () => {
    const { company, senders, ids, databaseId } = await setUp(1, 14_000);
    const automation = await createAutomation(company, poolBody(databaseId, ids));
    const message = expectErrorBody(
      await company.delete(`/api/gateway-configs/${senders[2].id}`),
      400,
    );
    expect(message).toBe('Configuração de gateway em uso: usada por uma automação ativa');
    await company.put(`/api/automations/${automation.id}`, { isActive: false }).expect(200);
    await company.delete(`/api/gateway-configs/${senders[2].id}`).expect(204);
  });

  it("refuses another company's number in the pool with 403, creating and changing nothing", async () => {
    const { company, senders, databaseId } = await setUp(1, 15_000);
    const other = await TestCompany.register(t.http);
    const foreign = await connectedConfig(other, fake);
    expectErrorBody(
      await company.post('/api/automations', poolBody(databaseId, [senders[0].id, foreign.id])),
      403,
    );
    expect(await countRows('automations', 'company_id = $1', [company.id])).toBe(0);

    const automation = await createAutomation(company, poolBody(databaseId, [senders[0].id]));
    expectErrorBody(
      await company.put(`/api/automations/${automation.id}`, {
        gatewayConfigIds: [foreign.id, senders[1].id],
      }),
      403,
    );
    expect((await company.get(`/api/automations/${automation.id}`)).body).toEqual(automation);
  });

  describe('bad input is a 400 naming the field, and creates nothing', () => {
    const cases: Array<[string, (ids: number[]) => Record<string, unknown>, string]> = [
      ['an empty list', () => ({ gatewayConfigIds: [] }), 'gatewayConfigIds='],
      ['a number twice', (ids) => ({ gatewayConfigIds: [ids[0], ids[0]] }), 'gatewayConfigIds='],
      [
        '21 numbers',
        (ids) => ({ gatewayConfigIds: Array.from({ length: 21 }, (_v, i) => ids[0] + i) }),
        'gatewayConfigIds=',
      ],
      [
        'an unknown number',
        (ids) => ({ gatewayConfigIds: [ids[0], 2_000_000_000] }),
        'gatewayConfigIds[1]=',
      ],
      ['a list of words', () => ({ gatewayConfigIds: ['um', 'dois'] }), 'gatewayConfigIds='],
      [
        'a pool together with gatewayConfigId',
        (ids) => ({ gatewayConfigIds: ids, gatewayConfigId: ids[0] }),
        'gatewayConfigIds=',
      ],
    ];

    it.each(cases)('%s', async (_label, change, field) => {
      const { company, ids, databaseId } = await setUp(1, 16_000);
      const body = poolBody(databaseId, undefined, change(ids));
      const message = expectErrorBody(await company.post('/api/automations', body), 400);
      expect(message).toContain(field);
      expect(await countRows('automations', 'company_id = $1', [company.id])).toBe(0);
    });

    it('on update too, changing nothing', async () => {
      const { company, senders, databaseId } = await setUp(1, 16_100);
      const automation = await createAutomation(company, poolBody(databaseId, [senders[0].id]));
      for (const gatewayConfigIds of [[], [senders[1].id, senders[1].id], [2_000_000_000]]) {
        const message = expectErrorBody(
          await company.put(`/api/automations/${automation.id}`, { gatewayConfigIds }),
          400,
        );
        expect(message).toContain('gatewayConfigIds');
      }
      expect((await company.get(`/api/automations/${automation.id}`)).body).toEqual(automation);
    });
  });

  /** The SYSTEM-contacts feed records who sent to whom about a second after the sends. */
  async function sendersRecorded(company: TestCompany, recordPhones: string[]): Promise<void> {
    await until(
      async () =>
        (
          await db().query<{ n: number }>(
            `SELECT count(*)::int AS n FROM contact_senders
              WHERE company_id = $1 AND phone_key = ANY (SELECT phone_match_key(p) FROM unnest($2::text[]) p)`,
            [company.id, recordPhones],
          )
        ).rows[0].n,
      (n) => n === recordPhones.length,
      10_000,
      'the senders recorded',
    );
  }
});
