import { campaignBody, connectedInstance, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { createDatabase, csv } from '../../support/user-databases';
import { until } from '../../support/waiting';
import { AWAITS_THE_FEED } from '../../../src/modules/campaigns/infrastructure/system-contacts-feed.sql';

/** Contact `c` was copied to the SYSTEM database: the feed's position is at it or past it. */
const COPIED_BY_THE_FEED = `c.sent_xid IS NOT NULL
  AND (c.sent_xid, c.id) <= (SELECT p.fed_xid, p.fed_id FROM system_contacts_feed_position p)`;

describe('user databases in campaigns', () => {
  const { t, fake } = useE2eFixture();

  /** The SYSTEM database once every sent contact reached it (a background copy does that). */
  async function systemRecords(company: TestCompany): Promise<{ database: any; records: any[] }> {
    await until(
      () =>
        countRows('campaign_contacts c', `company_id = $1 AND ${AWAITS_THE_FEED}`, [company.id]),
      (unrecorded) => unrecorded === 0,
      30_000,
    );
    const database = (await company.get('/api/user-databases').expect(200)).body[0];
    const page = await company
      .get(`/api/user-databases/${database.id}/records?sortBy=phone&sortDirection=ASC`)
      .expect(200);
    return { database, records: page.body.content };
  }

  it('records every phone a campaign reached in the SYSTEM database, updating it on later campaigns', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.refuseNumber('5511987650003');
    const first = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts: [
              { phoneNumber: '11987650001', name: 'Maria Souza' },
              { phoneNumber: '11987650002' },
              { phoneNumber: '11987650003', name: 'Recusado' },
            ],
          }),
        )
        .expect(200)
    ).body;
    await waitForCampaign(company, first.id, (c) => c.status === 'COMPLETED');
    const afterFirst = await systemRecords(company);
    expect(afterFirst.database).toMatchObject({
      origin: 'SYSTEM',
      name: 'Contatos de campanhas',
      rowCount: 2,
    });
    expect(afterFirst.records.map((r) => r.values)).toEqual([
      {
        phone: '5511987650001',
        name: 'Maria Souza',
        last_campaign_id: first.id,
        last_sent_at: expect.any(String),
      },
      {
        phone: '5511987650002',
        name: null,
        last_campaign_id: first.id,
        last_sent_at: expect.any(String),
      },
    ]);
    const sentAt = afterFirst.records[0].values.last_sent_at as string;
    expect(new Date(sentAt).toISOString()).toBe(sentAt);

    const second = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts: [
              { phoneNumber: '11987650002', name: 'João Lima' },
              { phoneNumber: '11987650004', name: 'Novo' },
            ],
          }),
        )
        .expect(200)
    ).body;
    await waitForCampaign(company, second.id, (c) => c.status === 'COMPLETED');
    const afterSecond = await systemRecords(company);
    expect(afterSecond.database.rowCount).toBe(3);
    expect(
      afterSecond.records.map((r) => [r.values.phone, r.values.name, r.values.last_campaign_id]),
    ).toEqual([
      ['5511987650001', 'Maria Souza', first.id],
      ['5511987650002', 'João Lima', second.id],
      ['5511987650004', 'Novo', second.id],
    ]);
    expect(
      (
        await company
          .get(`/api/user-databases/${afterSecond.database.id}/records?search=joao`)
          .expect(200)
      ).body.totalElements,
    ).toBe(1);
    expect(
      await countRows('user_databases', `company_id = $1 AND origin = 'SYSTEM'`, [company.id]),
    ).toBe(1);
  });

  it('copies sent contacts left uncopied (as after a crash) later, the latest send winning whatever the copy order', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const scheduled = (contacts: Array<{ phoneNumber: string; name: string }>): Promise<number> =>
      company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { contacts, scheduledFor: '2099-01-01T09:00:00' }),
        )
        .expect(200)
        .then((response) => response.body.id as number);
    const older = await scheduled([{ phoneNumber: '11987659001', name: 'Nome Antigo' }]);
    const newer = await scheduled([
      { phoneNumber: '11987659001', name: 'Nome Novo' },
      { phoneNumber: '11987659002', name: 'Outro' },
    ]);
    const markSent = (campaignId: number, sentAt: string): Promise<unknown> =>
      db().query(
        // Stamped as every statement that makes a contact SENT stamps it (SENT_STAMP).
        `UPDATE campaign_contacts SET status = 'SENT', sent_at = $2, sent_xid = pg_current_xact_id()
          WHERE campaign_id = $1`,
        [campaignId, sentAt],
      );

    await markSent(newer, '2026-05-02T10:00:00Z');
    const first = await systemRecords(company);
    await markSent(older, '2026-05-01T10:00:00Z');
    const second = await systemRecords(company);

    expect(first.database.rowCount).toBe(2);
    expect(second.database.rowCount).toBe(2);
    expect(
      second.records.map((r) => [r.values.phone, r.values.name, r.values.last_campaign_id]),
    ).toEqual([
      ['5511987659001', 'Nome Novo', newer],
      ['5511987659002', 'Outro', newer],
    ]);
    expect(
      await countRows('campaign_contacts c', `campaign_id = ANY($1) AND ${COPIED_BY_THE_FEED}`, [
        [older, newer],
      ]),
    ).toBe(3);
  });

  it('fills {columnName} variables from the record whose phone matches the contact', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const text = csv([
      ['Nome', 'Celular', 'Plano', 'Vencimento', 'Pontos'],
      ['Maria Souza', '(11) 98765-1001', 'Ouro', '2026-12-10', '1500'],
      ['João Lima', '11987651002', '', '2026-12-11', '20'],
    ]);
    const database = (
      await createDatabase(t.http, company, Buffer.from(text), 'clientes.csv', {
        name: 'Clientes',
        columnMappings: [
          { originalName: 'Nome' },
          { originalName: 'Celular', isPhoneColumn: true },
          { originalName: 'Plano' },
          { originalName: 'Vencimento', dataType: 'DATE' },
          { originalName: 'Pontos', dataType: 'NUMBER' },
        ],
      }).expect(201)
    ).body;
    const campaign = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            message:
              'Oi {PrimeiroNome}! Plano {plano}, vence {vencimento}, {pontos} pontos. {desconhecida}',
            databaseConfigId: database.id,
            contacts: [
              { phoneNumber: '5511987651001', name: 'Maria Souza' },
              { phoneNumber: '11987651002', name: 'João Lima' },
              { phoneNumber: '11987651003', name: 'Sem Registro' },
            ],
          }),
        )
        .expect(200)
    ).body;
    await waitForCampaign(company, campaign.id, (c) => c.status === 'COMPLETED');
    const textTo = (phone: string): unknown =>
      fake.sentTo(phone).find((s) => s.instance === gw.instance)?.body.text;
    expect(textTo('5511987651001')).toBe(
      'Oi Maria! Plano Ouro, vence 2026-12-10, 1500 pontos. {desconhecida}',
    );
    expect(textTo('5511987651002')).toBe(
      'Oi João! Plano , vence 2026-12-11, 20 pontos. {desconhecida}',
    );
    expect(textTo('5511987651003')).toBe(
      'Oi Sem! Plano {plano}, vence {vencimento}, {pontos} pontos. {desconhecida}',
    );
  });

  it('refuses a databaseConfigId that is missing (404), another company’s (403) or inactive (400), creating no campaign', async () => {
    const company = await TestCompany.register(t.http);
    const other = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const config = {
      name: 'X',
      columnMappings: [{ originalName: 'Telefone', isPhoneColumn: true }],
    };
    const file = Buffer.from(csv([['Telefone'], ['11987654321']]));
    const foreign = (await createDatabase(t.http, other, file, 'a.csv', config).expect(201)).body
      .id;
    const inactive = (await createDatabase(t.http, company, file, 'b.csv', config).expect(201)).body
      .id;
    await company.patch(`/api/user-databases/${inactive}/toggle-status`).expect(200);
    expectErrorBody(
      await company.post('/api/campaigns', campaignBody(fake, gw, { databaseConfigId: 999999999 })),
      404,
    );
    expectErrorBody(
      await company.post('/api/campaigns', campaignBody(fake, gw, { databaseConfigId: foreign })),
      403,
    );
    expect(
      expectErrorBody(
        await company.post(
          '/api/campaigns',
          campaignBody(fake, gw, { databaseConfigId: inactive }),
        ),
        400,
      ),
    ).toBe('A base de dados "X" não está ativa');
    expect(await countRows('campaigns', 'company_id = $1', [company.id])).toBe(0);
    const { rows } = await db().query(
      `SELECT count(*)::int AS n FROM user_database_records WHERE company_id = $1`,
      [company.id],
    );
    expect(rows[0].n).toBe(1);
  });
});
