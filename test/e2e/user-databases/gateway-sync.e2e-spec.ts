import { connectedInstance } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { startTestApp, TestCompany } from '../../support/test-app';
import { columnShapes, contactsDatabase } from '../../support/user-databases';

describe('gateway sync', () => {
  const { t, fake } = useE2eFixture();

  /** A saved configuration for a connected instance whose contacts, groups and chats are the fixtures below. */
  async function configuredInstance(
    company: TestCompany,
  ): Promise<{ configId: number; instance: string }> {
    const gateway = connectedInstance(fake);
    fake.setContacts(gateway.instance, [
      {
        remoteJid: '5511987654321@s.whatsapp.net',
        pushName: 'Maria',
        isGroup: false,
        isSaved: true,
      },
      {
        remoteJid: '5511987654321@s.whatsapp.net',
        pushName: 'Maria (de novo)',
        isGroup: false,
        isSaved: true,
      },
      { remoteJid: '201234567890123@lid', pushName: 'Sem número', isGroup: false, isSaved: true },
      { remoteJid: '120363012345678901@g.us', pushName: 'VIP', isGroup: true, isSaved: true },
      {
        remoteJid: '5521998877665@s.whatsapp.net',
        pushName: 'João',
        isGroup: false,
        isSaved: true,
      },
    ]);
    fake.setGroups(gateway.instance, [
      {
        id: '120363012345678901@g.us',
        subject: 'Clientes VIP',
        participants: [
          { id: '5511987654321@s.whatsapp.net', lid: '201234567890123@lid', admin: 'superadmin' },
          { id: '208765432109876@lid', phoneNumber: '5531988887777@s.whatsapp.net', admin: null },
          { id: '209999999999999@lid', admin: null },
        ],
      },
    ]);
    fake.setChats(gateway.instance, [
      { remoteJid: '5541977776666@s.whatsapp.net', pushName: 'Desconhecido', isSaved: false },
      { remoteJid: '5511987654321@s.whatsapp.net', pushName: 'Maria', isSaved: true },
    ]);
    const config = await company
      .post('/api/gateway-configs', {
        name: 'Principal',
        url: fake.url,
        apiKey: gateway.apiKey,
        instance: gateway.instance,
      })
      .expect(201);
    return { configId: config.body.id, instance: gateway.instance };
  }

  async function recordsOf(databaseId: number): Promise<Array<Record<string, unknown>>> {
    const { rows } = await db().query(
      `SELECT values FROM user_database_records WHERE database_id = $1 ORDER BY id`,
      [databaseId],
    );
    return rows.map((r) => r.values);
  }

  it('creates a GATEWAY database from the contacts, with the summary of docs/API-RULES.md §6', async () => {
    const company = await TestCompany.register(t.http);
    const { configId } = await configuredInstance(company);
    const response = await company
      .post('/api/user-databases/gateway/sync', {
        gatewayConfigId: configId,
        name: 'WhatsApp',
        description: 'Agenda',
      })
      .expect(201);
    expect(response.body).toMatchObject({
      name: 'WhatsApp',
      description: 'Agenda',
      origin: 'GATEWAY',
      status: 'ACTIVE',
      rowCount: 2,
      configId,
      includeGroups: false,
      lastSyncSummary: { totalFetched: 5, processed: 2, duplicatesSkipped: 1, filteredByPhone: 2 },
    });
    expect(new Date(response.body.lastSyncedAt).toISOString()).toBe(response.body.lastSyncedAt);
    expect(columnShapes(response.body)).toEqual([
      ['phone', 'PHONE', true, false],
      ['name', 'TEXT', false, true],
      ['jid', 'TEXT', false, false],
      ['type', 'TEXT', false, false],
    ]);
    expect(await recordsOf(response.body.id)).toEqual([
      {
        phone: '5511987654321',
        name: 'Maria',
        jid: '5511987654321@s.whatsapp.net',
        type: 'contact',
      },
      {
        phone: '5521998877665',
        name: 'João',
        jid: '5521998877665@s.whatsapp.net',
        type: 'contact',
      },
    ]);
  });

  it('updates the database with groups, members (LIDs by phoneNumber), unsaved chats and phoneless entries, replacing its records', async () => {
    const company = await TestCompany.register(t.http);
    const { configId } = await configuredInstance(company);
    const created = await company
      .post('/api/user-databases/gateway/sync', { gatewayConfigId: configId, name: 'WhatsApp' })
      .expect(201);
    const updated = await company
      .post('/api/user-databases/gateway/sync', {
        databaseId: created.body.id,
        gatewayConfigId: configId,
        includeGroups: true,
        includeGroupMembers: true,
        includeUnsavedContacts: true,
        includeContactsWithoutPhone: true,
      })
      .expect(200);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      name: 'WhatsApp',
      rowCount: 7,
      includeGroups: true,
      lastSyncSummary: { totalFetched: 10, processed: 7, duplicatesSkipped: 3, filteredByPhone: 0 },
    });
    expect(await recordsOf(created.body.id)).toEqual([
      {
        phone: '5511987654321',
        name: 'Maria',
        jid: '5511987654321@s.whatsapp.net',
        type: 'contact',
      },
      { name: 'Sem número', jid: '201234567890123@lid', type: 'contact' },
      { name: 'VIP', jid: '120363012345678901@g.us', type: 'group' },
      {
        phone: '5521998877665',
        name: 'João',
        jid: '5521998877665@s.whatsapp.net',
        type: 'contact',
      },
      { phone: '5531988887777', jid: '208765432109876@lid', type: 'group_member' },
      { jid: '209999999999999@lid', type: 'group_member' },
      {
        phone: '5541977776666',
        name: 'Desconhecido',
        jid: '5541977776666@s.whatsapp.net',
        type: 'unsaved',
      },
    ]);
    expect(
      fake.requests.some(
        (r) =>
          r.instance !== null &&
          r.path.startsWith('/group/fetchAllGroups') &&
          r.query.getParticipants === 'true',
      ),
    ).toBe(true);
  });

  it('keeps repeats when deduplicate is false', async () => {
    const company = await TestCompany.register(t.http);
    const { configId } = await configuredInstance(company);
    const response = await company
      .post('/api/user-databases/gateway/sync', {
        gatewayConfigId: configId,
        name: 'Com repetidos',
        deduplicate: false,
      })
      .expect(201);
    expect(response.body.lastSyncSummary).toEqual({
      totalFetched: 5,
      processed: 3,
      duplicatesSkipped: 0,
      filteredByPhone: 2,
    });
  });

  it('reads one response at a time and stops past the row cap, changing nothing', async () => {
    const capped = await startTestApp({ GATEWAY_SYNC_MAX_ROWS: '5' });
    try {
      const company = await TestCompany.register(capped.http);
      const { configId, instance } = await configuredInstance(company);
      const created = await company
        .post('/api/user-databases/gateway/sync', { gatewayConfigId: configId, name: 'WhatsApp' })
        .expect(201);
      const before = await recordsOf(created.body.id);
      fake.requests.length = 0;
      // 5 contacts, then 1 group: 6 rows, over the cap of 5; the chats are never asked for.
      const refused = await company.post('/api/user-databases/gateway/sync', {
        gatewayConfigId: configId,
        databaseId: created.body.id,
        includeGroups: true,
        includeUnsavedContacts: true,
      });
      expect(expectErrorBody(refused, 400)).toMatch(/mais de 5 contatos.*sem alterar nada/);
      expect(await recordsOf(created.body.id)).toEqual(before);
      const asked = fake.requests.filter((r) => r.instance === instance).map((r) => r.path);
      expect(asked).toEqual([
        `/chat/findContacts/${instance}`,
        `/group/fetchAllGroups/${instance}`,
      ]);
    } finally {
      await capped.close();
    }
  });

  it('refuses what it cannot sync, creating nothing', async () => {
    const company = await TestCompany.register(t.http);
    const other = await TestCompany.register(t.http);
    const { configId, instance } = await configuredInstance(company);
    const foreignConfig = (await configuredInstance(other)).configId;
    const upload = await contactsDatabase(t.http, company, 1);
    const foreignDatabase = await contactsDatabase(t.http, other, 1);
    const system = (await company.get('/api/user-databases').expect(200)).body[0].id;
    const sync = (body: Record<string, unknown>) =>
      company.post('/api/user-databases/gateway/sync', body);
    expect(expectErrorBody(await sync({ gatewayConfigId: configId }), 400)).toBe(
      '{name=é obrigatório ao criar uma base}',
    );
    expect(
      expectErrorBody(await sync({ gatewayConfigId: configId, name: 'X', extra: true }), 400),
    ).toBe('{extra=campo desconhecido}');
    expect(expectErrorBody(await sync({ name: 'X' }), 400)).toBe(
      '{gatewayConfigId=é obrigatório e deve ser um número inteiro}',
    );
    expectErrorBody(await sync({ gatewayConfigId: foreignConfig, name: 'X' }), 403);
    expectErrorBody(await sync({ gatewayConfigId: 999999999, name: 'X' }), 404);
    expectErrorBody(await sync({ gatewayConfigId: configId, databaseId: foreignDatabase }), 403);
    expectErrorBody(await sync({ gatewayConfigId: configId, databaseId: system }), 403);
    expect(
      expectErrorBody(await sync({ gatewayConfigId: configId, databaseId: upload }), 400),
    ).toBe('Só bases criadas por sincronização com o gateway podem ser sincronizadas de novo');
    fake.setState(instance, 'close');
    fake.failNext(5, 401, 'read');
    expect(expectErrorBody(await sync({ gatewayConfigId: configId, name: 'X' }), 400)).toBe(
      'Credenciais do gateway inválidas: a chave de API foi recusada',
    );
    expect(
      await countRows('user_databases', `company_id = $1 AND origin = 'GATEWAY'`, [company.id]),
    ).toBe(0);
    expect(await countRows('user_database_records', 'database_id = $1', [upload])).toBe(1);
  });
});
