import { createWelcomeAutomation, importDatabase, runNowAndWait } from '../../support/automations';
import {
  campaignBody,
  connectedConfig,
  connectedInstance,
  phones,
  waitForCampaign,
} from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';
import { ADMIN_HEADER, TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';
import { SHARED_ENCRYPTION_KEY } from '../../support/worker-process';

interface ContactRow {
  phone_number: string;
  status: string;
  failure_reason: string | null;
  gateway_message_id: string | null;
  retry_count: number;
}

async function contactRows(campaignId: number): Promise<ContactRow[]> {
  const { rows } = await db().query(
    `SELECT phone_number, status, failure_reason, gateway_message_id, retry_count
       FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

async function campaignRow(campaignId: number): Promise<Record<string, any>> {
  const { rows } = await db().query(
    `SELECT status, sent_contacts, failed_contacts, unknown_outcome_contacts, pause_reason,
            (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = $1 AND status = 'SENT') AS sent_rows,
            (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = $1 AND status = 'FAILED') AS failed_rows,
            (SELECT count(*)::int FROM campaign_contacts WHERE campaign_id = $1
                AND status IN ('PENDING', 'SENDING', 'UNCERTAIN')) AS unfinished_rows
       FROM campaigns WHERE id = $1`,
    [campaignId],
  );
  return rows[0];
}

function messagesPerPhone(fake: FakeEvolutionApi, instance: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of fake.sent.filter((x) => x.instance === instance)) {
    counts.set(s.number, (counts.get(s.number) ?? 0) + 1);
  }
  return counts;
}

/**
 * What each gateway answer proves, end to end against the fake Evolution API: a send whose
 * answer is late or lost is reconciled and never sent twice; a disconnect waits; our own
 * errors never burn contacts; the state of the world at send time decides.
 */
describe('send outcomes the engine can trust', () => {
  const { t, fake } = useE2eFixture({
    env: {
      GATEWAY_SEND_TIMEOUT_MS: '700',
      RECONCILE_DELAYS_MS: '300,900',
      ENCRYPTION_KEY: SHARED_ENCRYPTION_KEY,
    },
    noRefusals: true,
    resetFake: true,
  });

  it('reconciles a send the gateway answered after the timeout: SENT with its key, sent once', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.setResponseDelay(2_000);
    const c = (
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { contacts: phones(2, 100) }))
        .expect(200)
    ).body;
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    fake.setResponseDelay(0);
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 0, unknownOutcomeContacts: 0 });
    const perPhone = messagesPerPhone(fake, gw.instance);
    expect([...perPhone.values()]).toEqual([1, 1]);
    const rows = await contactRows(c.id);
    const sentIds = fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.messageId);
    expect(rows.map((r) => r.status)).toEqual(['SENT', 'SENT']);
    expect(rows.map((r) => r.gateway_message_id).sort()).toEqual([...sentIds].sort());
    expect(rows.map((r) => r.retry_count)).toEqual([1, 1]);
  });

  it('reconciles a send whose connection closed after the request was read', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.scriptSends('send-then-drop', 'send-then-proxy-502');
    const c = (
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { contacts: phones(3, 200) }))
        .expect(200)
    ).body;
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 3, failedContacts: 0 });
    expect([...messagesPerPhone(fake, gw.instance).values()]).toEqual([1, 1, 1]);
    expect((await contactRows(c.id)).every((r) => r.gateway_message_id !== null)).toBe(true);
  });

  it('fails as unknown, never resending, a lost send the gateway cannot show', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.scriptSends('drop-without-sending', 'send-then-drop');
    fake.storesMessages = false;
    const c = (
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { contacts: phones(3, 300) }))
        .expect(200)
    ).body;
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 1, failedContacts: 2, unknownOutcomeContacts: 2 });
    const rows = await contactRows(c.id);
    expect(rows.map((r) => r.status)).toEqual(['FAILED', 'FAILED', 'SENT']);
    expect(rows[0].failure_reason).toMatch(/resultado desconhecido/);
    // The first never reached WhatsApp and the second did: neither got a second attempt.
    const perPhone = messagesPerPhone(fake, gw.instance);
    expect(perPhone.get(rows[0].phone_number)).toBeUndefined();
    expect(perPhone.get(rows[1].phone_number)).toBe(1);
    expect(rows.map((r) => r.retry_count)).toEqual([1, 1, 1]);
    const contacts = (await company.get(`/api/campaigns/${c.id}/contacts`).expect(200)).body;
    expect(contacts[0]).toMatchObject({ status: 'FAILED', failureReason: rows[0].failure_reason });
  });

  it('waits on a 400 "Connection Closed" and sends once the instance answers again', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.scriptSends('connection-closed-400');
    const c = (
      await company
        .post('/api/campaigns', campaignBody(fake, gw, { contacts: phones(1, 400) }))
        .expect(200)
    ).body;
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 1, failedContacts: 0 });
    const sends = fake.requests.filter((r) => r.path.startsWith('/message/'));
    expect(sends.map((r) => r.status)).toEqual([400, 201]);
    // The disconnected attempt is not counted against the contact.
    expect((await contactRows(c.id))[0]).toMatchObject({ status: 'SENT', retry_count: 1 });
  });

  it('fails a number blocked after the campaign was created, without sending to it', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(3, 500);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { contacts, intervalMinSeconds: 1, intervalMaxSeconds: 1 }),
        )
        .expect(200)
    ).body;
    await company
      .post(`/api/companies/${company.id}/blocked-contacts/import`, {
        phoneNumbers: [contacts[2].phoneNumber],
        reason: 'pediu para sair',
      })
      .expect(200);
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 1 });
    expect(fake.sentTo(contacts[2].phoneNumber)).toHaveLength(0);
    expect((await contactRows(c.id))[2]).toMatchObject({
      status: 'FAILED',
      failure_reason: 'número bloqueado depois da criação da campanha',
    });
  });

  it('fails a contact whose message renders blank, without a gateway call, and warns about the template', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            message: '{PrimeiroNome}',
            contacts: [
              { phoneNumber: '5511987651001', name: 'Ana' },
              { phoneNumber: '5511987651002' },
            ],
          }),
        )
        .expect(200)
    ).body;
    expect(c.warnings).toEqual([expect.stringContaining('em branco')]);
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    expect(done).toMatchObject({ sentContacts: 1, failedContacts: 1 });
    expect(fake.sentTo('5511987651002')).toHaveLength(0);
    expect((await contactRows(c.id))[1].failure_reason).toMatch(/em branco/);
  });

  it('stops a deactivated company’s campaign within seconds, with a reason', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts: phones(5, 600),
            intervalMinSeconds: 1,
            intervalMaxSeconds: 1,
          }),
        )
        .expect(200)
    ).body;
    await fake.waitForSent(1);
    await t.http
      .patch(`/api/admin/companies/${company.id}`)
      .set(ADMIN_HEADER)
      .send({ isActive: false })
      .expect(200);
    const row = await until(
      () => campaignRow(c.id),
      (campaign) => campaign.status === 'PAUSED',
      15_000,
    );
    expect(row).toMatchObject({ status: 'PAUSED', pause_reason: 'a empresa foi desativada' });
    const sentAtPause = fake.sent.filter((s) => s.instance === gw.instance).length;
    // A real span: the next of its 1 s pauses goes by with nothing sent.
    await sleep(1_500);
    expect(fake.sent.filter((s) => s.instance === gw.instance).length).toBe(sentAtPause);
    expect(row.sent_contacts).toBeLessThan(5);
  });

  it('leaves a running campaign running when an inline key with a typo is refused, saving nothing', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const running = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            contacts: phones(3, 700),
            intervalMinSeconds: 1,
            intervalMaxSeconds: 1,
          }),
        )
        .expect(200)
    ).body;
    const { rows: before } = await db().query(
      `SELECT api_key_encrypted, updated_at FROM gateway_configs WHERE id = $1`,
      [running.gatewayConfig.id],
    );
    for (const isDraft of [false, true]) {
      const refused = await company
        .post(
          '/api/campaigns',
          campaignBody(fake, { ...gw, apiKey: `${gw.apiKey}-typo` }, { isDraft }),
        )
        .expect(400);
      expect(expectErrorBody(refused, 400, '/api/campaigns')).toMatch(/chave de API/);
    }
    const { rows: after } = await db().query(
      `SELECT api_key_encrypted, updated_at FROM gateway_configs WHERE id = $1`,
      [running.gatewayConfig.id],
    );
    expect(after).toEqual(before);
    const done = await waitForCampaign(company, running.id, (x) => x.status !== 'ACTIVE', 30_000);
    expect(done).toMatchObject({ status: 'COMPLETED', sentContacts: 3, failedContacts: 0 });
  });

  it('counts an automation send whose outcome stayed unknown as served: the next run does not send it again', async () => {
    const company = await TestCompany.register(t.http);
    const { id: configId, gw } = await connectedConfig(company, fake);
    const database = await importDatabase(company, [
      { telefone: '11987670001', nome: 'Ana' },
      { telefone: '11987670002', nome: 'Bruno' },
    ]);
    const automation = await createWelcomeAutomation(company, database.id, configId);
    // The first send is lost on the way back and the gateway keeps no messages: unknown outcome.
    fake.storesMessages = false;
    fake.scriptSends('send-then-drop');
    const first = await runNowAndWait(company, automation.id);
    expect(first).toMatchObject({ sent: 1, failed: 1 });
    const second = await runNowAndWait(company, automation.id);
    expect(second).toMatchObject({ sent: 0, skippedByDedup: 2 });
    expect(
      fake.sent
        .filter((s) => s.instance === gw.instance)
        .map((s) => s.number)
        .sort(),
    ).toEqual(['5511987670001', '5511987670002']);
  });

  it('sends an uploaded local image as base64 the real gateway accepts', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const upload = await t.http
      .post('/media/upload')
      .set(company.auth)
      .attach('file', png, { filename: 'oferta.png', contentType: 'image/png' })
      .expect(201);
    expect(upload.body.url).toMatch(/^http:\/\/localhost:\d+\/media\/files\//);
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, { mediaUrl: upload.body.url, contacts: phones(1, 800) }),
        )
        .expect(200)
    ).body;
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    const [sent] = fake.sent.filter((s) => s.instance === gw.instance);
    expect(sent.endpoint).toBe('sendMedia');
    expect(sent.body).toMatchObject({
      mediatype: 'image',
      mimetype: 'image/png',
      media: png.toString('base64'),
    });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/x.jpg', /endereço de rede não permitido/],
    ['http://localhost:8080/foto.jpg', /o gateway recusaria esta URL/],
    ['https://cdn_1.example.com/foto.jpg', /o gateway recusaria esta URL/],
    ['data:image/png;base64,@@@', /base64 válido/],
  ])('refuses the mediaUrl %s at creation, creating nothing', async (mediaUrl, message) => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const response = await company
      .post('/api/campaigns', campaignBody(fake, gw, { mediaUrl, mediaType: 'image' }))
      .expect(400);
    expect(expectErrorBody(response, 400, '/api/campaigns')).toMatch(message);
    expect(expectErrorBody(response, 400, '/api/campaigns')).toMatch(/mediaUrl=/);
    const { rows } = await db().query(
      `SELECT count(*)::int AS n FROM campaigns WHERE company_id = $1`,
      [company.id],
    );
    expect(rows[0].n).toBe(0);
  });

  it('sends a document with a file name that has its extension, and never echoes data-URI bytes', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const pdf = Buffer.from('%PDF-1.4 teste').toString('base64');
    const wrapped = `${pdf.slice(0, 8)}\r\n${pdf.slice(8)}`.replace(/=+$/, '');
    const c = (
      await company
        .post(
          '/api/campaigns',
          campaignBody(fake, gw, {
            mediaUrl: `data:application/pdf;base64,${wrapped}`,
            fileName: 'catalogo',
            contacts: phones(1, 900),
          }),
        )
        .expect(200)
    ).body;
    expect(c.mediaUrl).toMatch(/^data:application\/pdf;base64,… \(\d+ bytes\)$/);
    const listed = (await company.get('/api/campaigns').expect(200)).body;
    expect(JSON.stringify(listed)).not.toContain(pdf.slice(0, 12));
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 30_000);
    const [sent] = fake.sent.filter((s) => s.instance === gw.instance);
    expect(sent.body).toMatchObject({
      mediatype: 'document',
      media: pdf,
      fileName: 'catalogo.pdf',
      mimetype: 'application/pdf',
    });
  });

  it('refuses a document whose type cannot be known and a data URI over 16 MB', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const noType = await company
      .post(
        '/api/campaigns',
        campaignBody(fake, gw, {
          mediaUrl: 'https://cdn.example.com/download',
          mediaType: 'document',
        }),
      )
      .expect(400);
    expect(expectErrorBody(noType, 400, '/api/campaigns')).toMatch(/fileName=/);
    // Over 16 MB decoded: the campaigns' 16 MB body limit answers first (413).
    const big = `data:image/png;base64,${'A'.repeat(22_500_000)}`;
    const tooBig = await company.post('/api/campaigns', campaignBody(fake, gw, { mediaUrl: big }));
    expect([400, 413]).toContain(tooBig.status);
    const { rows } = await db().query(
      `SELECT count(*)::int AS n FROM campaigns WHERE company_id = $1`,
      [company.id],
    );
    expect(rows[0].n).toBe(0);
  });
});
