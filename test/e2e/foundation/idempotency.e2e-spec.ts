import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { countRows } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { CONTACT_MAPPINGS, contactsCsv, createDatabase } from '../../support/user-databases';
import { until } from '../../support/waiting';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('Idempotency-Key', () => {
  const { t, fake } = useE2eFixture();
  let counter = 0;
  const newKey = (): string => `chave-${process.pid}-${Date.now()}-${(counter += 1)}`;

  it('replays a repeated campaign creation: the first response again, one campaign, each contact one message', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const key = newKey();
    const body = campaignBody(fake, gw, { contacts: phones(3, 11_000) });
    const first = await company
      .post('/api/campaigns', body)
      .set('Idempotency-Key', key)
      .expect(200);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await company
      .post('/api/campaigns', reordered)
      .set('Idempotency-Key', key)
      .expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(1);
    await waitForCampaign(company, first.body.id, (c) => c.status === 'COMPLETED');
    expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(3);
  });

  it('answers 422 to the same key with another body, and 400 to a malformed key, creating nothing', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const key = newKey();
    await company
      .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true }))
      .set('Idempotency-Key', key)
      .expect(200);
    const other = await company
      .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true, name: 'Outra' }))
      .set('Idempotency-Key', key);
    expect(expectErrorBody(other, 422, '/api/campaigns')).toMatch(/já foi usada com outro pedido/);
    const malformed = await company
      .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true }))
      .set('Idempotency-Key', 'x'.repeat(256));
    expect(expectErrorBody(malformed, 400)).toContain('Idempotency-Key=');
    expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(1);
  });

  it('answers 409 while the first request with the key is still running, then replays it', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const key = newKey();
    const body = campaignBody(fake, gw, { isDraft: false, contacts: phones(1, 12_000) });
    fake.setResponseDelay(1_500);
    try {
      const first = company.post('/api/campaigns', body).set('Idempotency-Key', key);
      const firstDone = first.then((response) => response);
      // Running: it holds the key while it waits for the (slow) gateway's answer.
      await until(
        () => fake.requests.some((r) => r.instance === gw.instance),
        (asked) => asked,
      );
      const during = await company.post('/api/campaigns', body).set('Idempotency-Key', key);
      expect(expectErrorBody(during, 409, '/api/campaigns')).toMatch(/em andamento/);
      expect((await firstDone).status).toBe(200);
    } finally {
      fake.setResponseDelay(0);
    }
    const after = await company
      .post('/api/campaigns', body)
      .set('Idempotency-Key', key)
      .expect(200);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(1);
  });

  it('lets the same key try again after a refused request', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const key = newKey();
    const body = campaignBody(fake, gw, { isDraft: true });
    fake.setState(gw.instance, 'close');
    await company
      .post('/api/campaigns', { ...body, isDraft: false })
      .set('Idempotency-Key', key)
      .expect(400);
    fake.setState(gw.instance, 'open');
    await company
      .post('/api/campaigns', { ...body, isDraft: false })
      .set('Idempotency-Key', key)
      .expect(200);
    expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(1);
  });

  it('replays push imports, database uploads and media uploads', async () => {
    const company = await TestCompany.register(t.http);
    const importPath = `/api/companies/${company.id}/imports/contacts`;
    const contacts = { contacts: phones(2, 13_000) };
    const imported = await company
      .post(importPath, contacts)
      .set('Idempotency-Key', 'imp-1')
      .expect(201);
    const importedAgain = await company
      .post(importPath, contacts)
      .set('Idempotency-Key', 'imp-1')
      .expect(201);
    expect(importedAgain.body).toEqual(imported.body);
    const generic = `${importPath}/generic`;
    const rows = { rows: [{ telefone: '11987650001', nome: 'Ana' }] };
    await company.post(generic, rows).set('Idempotency-Key', 'gen-1').expect(201);
    await company.post(generic, rows).set('Idempotency-Key', 'gen-1').expect(201);

    const upload = () =>
      createDatabase(t.http, company, contactsCsv(3), 'clientes.csv', {
        name: 'Clientes',
        columnMappings: CONTACT_MAPPINGS,
      }).set('Idempotency-Key', 'db-1');
    const database = await upload().expect(201);
    const databaseAgain = await upload().expect(201);
    expect(databaseAgain.body.id).toBe(database.body.id);
    expect(
      await countRows('user_databases', "company_id = $1 AND origin <> 'SYSTEM'", [company.id]),
    ).toBe(3);

    const media = () =>
      t.http
        .post('/media/upload')
        .set(company.auth)
        .set('Idempotency-Key', 'media-1')
        .attach('file', PNG, { filename: 'a.png', contentType: 'image/png' });
    const stored = await media().expect(201);
    const storedAgain = await media().expect(201);
    expect(storedAgain.body).toEqual(stored.body);
    expect(storedAgain.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps keys apart per company', async () => {
    const [a, b] = [await TestCompany.register(t.http), await TestCompany.register(t.http)];
    const gw = connectedInstance(fake);
    for (const company of [a, b]) {
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { isDraft: true }))
        .set('Idempotency-Key', 'mesma-chave')
        .expect(200);
      expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(1);
    }
  });
});
