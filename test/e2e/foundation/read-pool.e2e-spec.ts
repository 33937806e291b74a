import type { QueryRunner } from 'typeorm';
import { DataSource } from 'typeorm';
import { campaignBody, connectedInstance } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { TestCompany } from '../../support/test-app';
import { contactsDatabase } from '../../support/user-databases';

/**
 * The application's reads have a connection pool of their own: with every connection of the
 * other pool held (as a hundred dispatching campaigns hold them), the lists still answer.
 */
describe('read pool', () => {
  const held: QueryRunner[] = [];
  // Before the fixture's: the connections go back before the app closes.
  afterAll(async () => {
    await Promise.all(held.map((runner) => runner.release()));
  });
  const { t, fake } = useE2eFixture({ env: { ROLE: 'api' } });

  it('answers the lists while background work holds every connection of the main pool', async () => {
    const company = await TestCompany.register(t.http);
    const gateway = connectedInstance(fake);
    const campaign = await company
      .post('/api/campaigns', campaignBody(fake, gateway, { scheduledFor: '2099-01-01T10:00:00' }))
      .expect(200);
    const databaseId = await contactsDatabase(t.http, company, 3);

    const dataSource = t.app.get(DataSource);
    const poolSize = (dataSource.options.extra as { max: number }).max;
    for (let i = 0; i < poolSize; i += 1) {
      const runner = dataSource.createQueryRunner('master');
      await runner.startTransaction();
      await runner.query('SELECT 1');
      held.push(runner);
    }

    const campaigns = await company.get('/api/campaigns?page=0&size=20').expect(200);
    expect(campaigns.body.map((c: any) => c.id)).toEqual([campaign.body.id]);
    const contacts = await company.get(`/api/campaigns/${campaign.body.id}/contacts`).expect(200);
    expect(contacts.body).toHaveLength(3);
    const records = await company
      .get(`/api/user-databases/${databaseId}/records?search=5511`)
      .expect(200);
    expect(records.body.totalElements).toBe(3);
  });
});
