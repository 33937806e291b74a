import { importDatabase, runsOnceCompleted, todayInSaoPaulo } from '../../support/automations';
import { connectedInstance } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';

describe('automations with two worker processes', () => {
  const { t, fake, startWorker } = useE2eFixture({ role: 'api' });

  it('starts exactly one run of a due automation, and each contact gets one message', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const config = await company
      .post('/api/gateway-configs', {
        name: 'Principal',
        url: fake.url,
        apiKey: gw.apiKey,
        instance: gw.instance,
      })
      .expect(201);
    const rows = Array.from({ length: 20 }, (_v, i) => ({
      telefone: `1198768${String(1000 + i)}`,
      nome: `Cliente ${i}`,
      nascimento: todayInSaoPaulo(25),
    }));
    const database = await importDatabase(company, rows);
    const automation = (
      await company
        .post('/api/automations', {
          name: 'Aniversário',
          scheduleType: 'DAILY',
          schedule: { timeOfDay: '09:00', timezone: 'America/Sao_Paulo' },
          databaseConfigId: database.id,
          gatewayConfigId: config.body.id,
          filters: [{ filterId: 'nascimento', value: 'TODAY', ignoreYear: true }],
          messageConfig: { type: 'TEXT', message: 'Parabéns, {PrimeiroNome}!' },
          intervalMinSeconds: 0,
          intervalMaxSeconds: 0,
        })
        .expect(201)
    ).body;
    await Promise.all([startWorker(), startWorker()]);
    await db().query(`UPDATE automations SET next_run_at = now() WHERE id = $1`, [automation.id]);
    await fake.waitForSent(fake.sent.length + 20, 60_000);
    const runs = await runsOnceCompleted(company, automation.id, 30_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'COMPLETED', trigger: 'SCHEDULE', sent: 20 });
    const numbers = fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.number);
    expect(numbers).toHaveLength(20);
    expect(new Set(numbers).size).toBe(20);
  });
});
