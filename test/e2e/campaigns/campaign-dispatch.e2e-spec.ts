import { campaignBody, connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import { TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';

async function contactsOf(company: TestCompany, id: number): Promise<Array<Record<string, any>>> {
  return (await company.get(`/api/campaigns/${id}/contacts?size=100`).expect(200)).body;
}

async function createCampaign(
  company: TestCompany,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  return (await company.post('/api/campaigns', body).expect(200)).body;
}

async function eventsOf(campaignId: number): Promise<Array<{ event_type: string; payload: any }>> {
  const { rows } = await db().query(
    `SELECT event_type, payload FROM outbox_events WHERE campaign_id = $1 ORDER BY id`,
    [campaignId],
  );
  return rows;
}

/** The health's details (the engine's figures) are shown only to the metrics token. */
const METRICS_TOKEN = 'dispatch-metrics-token-0123456789';

describe('campaign dispatch engine', () => {
  const { t, fake } = useE2eFixture({ env: { METRICS_TOKEN }, noRefusals: true });

  it('paces messages by at least the minimum interval', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, { intervalMinSeconds: 1, intervalMaxSeconds: 2 }),
    );
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    const times = fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.at.getTime());
    expect(times).toHaveLength(3);
    for (let i = 1; i < times.length; i += 1) {
      expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(950);
    }
  });

  it('gives the lease back while waiting out an interval, and after the last message', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, { intervalMinSeconds: 3, intervalMaxSeconds: 3 }),
    );
    const lease = async (): Promise<{ locked_by: string | null; sent_contacts: number }> =>
      (await db().query(`SELECT locked_by, sent_contacts FROM campaigns WHERE id = $1`, [c.id]))
        .rows[0];
    // Given back within the 3 s pause: after the first message, before the second.
    const waiting = await until(
      lease,
      (row) => row.sent_contacts > 1 || (row.sent_contacts === 1 && row.locked_by === null),
    );
    expect(waiting).toEqual({ locked_by: null, sent_contacts: 1 });

    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    expect(await lease()).toEqual({ locked_by: null, sent_contacts: 3 });
  });

  it('sends zero-interval messages back to back, each contact once, in order', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(120, 7_000);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, { intervalMinSeconds: 0, intervalMaxSeconds: 0, contacts }),
    );
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    const sentTo = fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.number);
    expect(sentTo).toEqual(contacts.map((contact) => contact.phoneNumber));
    const { rows } = await db().query(
      `SELECT locked_by, sent_contacts, failed_contacts FROM campaigns WHERE id = $1`,
      [c.id],
    );
    expect(rows[0]).toEqual({ locked_by: null, sent_contacts: 120, failed_contacts: 0 });
  });

  it('draws a variant per contact, sends it, and records it as the contact’s sentText', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = phones(30, 9_000).map((contact, i) => ({
      phoneNumber: contact.phoneNumber,
      name: `Pessoa${i} Souza`,
    }));
    // A name with braces and a bar is data, never variants: the draw comes first.
    contacts.push({ phoneNumber: '5511980009999', name: '{Ana|Bia} Lima' });
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, { message: '{Olá|Oi|Bom dia} {PrimeiroNome}', contacts }),
    );
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');

    const sentHere = (phone: string) =>
      fake.sentTo(phone).filter((s) => s.instance === gw.instance);
    const received = fake.sent.filter((s) => s.instance === gw.instance);
    expect(received).toHaveLength(contacts.length);
    const greetings = new Set<string>();
    for (const contact of contacts) {
      const texts = sentHere(contact.phoneNumber).map((s) => s.body.text as string);
      expect(texts).toHaveLength(1);
      const firstName = contact.name.split(' ')[0];
      const greeting = ['Olá', 'Oi', 'Bom dia'].find((g) => texts[0] === `${g} ${firstName}`);
      expect({ text: texts[0], greeting }).toEqual({
        text: texts[0],
        greeting: expect.any(String),
      });
      greetings.add(greeting as string);
    }
    expect(greetings.size).toBeGreaterThanOrEqual(2);

    const listed = await contactsOf(company, c.id);
    expect(listed).toHaveLength(contacts.length);
    for (const contact of listed) {
      expect(contact.status).toBe('SENT');
      expect(contact.sentText).toBe(sentHere(contact.phoneNumber)[0].body.text);
    }
  });

  it('writes started, one progress event per 10 % step in order, and completed to the outbox', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(company, campaignBody(fake, gw, { contacts: phones(4) }));
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    const events = await eventsOf(c.id);
    expect(events.map((e) => e.event_type)).toEqual([
      'campaign.started',
      ...Array(10).fill('campaign.progress'),
      'campaign.completed',
    ]);
    expect(
      events.filter((e) => e.event_type === 'campaign.progress').map((e) => e.payload.milestone),
    ).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    const completed = events[events.length - 1].payload;
    expect(completed).toMatchObject({
      event: 'campaign.completed',
      campaignId: c.id,
      companyId: company.id,
      stats: {
        total: 4,
        sent: 4,
        failed: 0,
        pending: 0,
        progressPercentage: 100,
        // Receipts counted so far (none without delivery tracking).
        delivered: 0,
        read: 0,
      },
    });
    expect(completed.stats.duration).toMatch(/^\d{2}:\d{2}:\d{2}$/);
    expect(new Date(completed.timestamp).toISOString()).toBe(completed.timestamp);
  });

  it('pauses before the next message and resumes with the pending contacts', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, {
        contacts: phones(4, 100),
        intervalMinSeconds: 1,
        intervalMaxSeconds: 1,
      }),
    );
    await fake.waitForSent(fake.sent.length + 1);
    const paused = await company.put(`/api/campaigns/${c.id}/pause`).expect(200);
    expect(paused.body.status).toBe('PAUSED');
    expect(paused.body.pausedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const sentAtPause = fake.sent.filter((s) => s.instance === gw.instance).length;
    expect(sentAtPause).toBeLessThanOrEqual(2);
    // A real span: two of its 1 s pauses go by with nothing sent.
    await sleep(2500);
    expect(fake.sent.filter((s) => s.instance === gw.instance)).toHaveLength(sentAtPause);
    // Pausing again is refused: only ACTIVE campaigns pause.
    expectErrorBody(await company.put(`/api/campaigns/${c.id}/pause`), 400);
    const resumed = await company.put(`/api/campaigns/${c.id}/resume`).expect(200);
    expect(resumed.body.status).toBe('ACTIVE');
    expect(resumed.body.pausedAt).toBeNull();
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    expect(done.sentContacts).toBe(4);
    const numbers = fake.sent.filter((s) => s.instance === gw.instance).map((s) => s.number);
    expect(new Set(numbers).size).toBe(4);
    expect(numbers).toHaveLength(4);
  });

  it('stops for good on cancel: statistics kept, unprocessed contacts stay pending', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, {
        contacts: phones(5, 200),
        intervalMinSeconds: 1,
        intervalMaxSeconds: 1,
      }),
    );
    await fake.waitForSent(fake.sent.length + 1);
    const cancelled = await company.put(`/api/campaigns/${c.id}/cancel`).expect(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    // A real span: two of its 1 s pauses go by with nothing sent.
    await sleep(2000);
    const sent = fake.sent.filter((s) => s.instance === gw.instance).length;
    expect(sent).toBeLessThanOrEqual(2);
    const after = (await company.get(`/api/campaigns/${c.id}`)).body;
    expect(after.status).toBe('CANCELLED');
    expect(after.sentContacts).toBe(sent);
    expect(after.pendingContacts).toBe(5 - sent);
    const contacts = await contactsOf(company, c.id);
    expect(contacts.filter((x) => x.status === 'PENDING')).toHaveLength(5 - sent);
    expectErrorBody(await company.put(`/api/campaigns/${c.id}/resume`), 400);
  });

  it('counts a send that was in flight when the campaign was cancelled, scheduling nothing after it', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.setResponseDelay(1500);
    try {
      const c = await createCampaign(
        company,
        campaignBody(fake, gw, { intervalMinSeconds: 60, intervalMaxSeconds: 60 }),
      );
      await until(
        () => fake.sent.some((s) => s.instance === gw.instance),
        (sent) => sent,
      );
      await company.put(`/api/campaigns/${c.id}/cancel`).expect(200);
      const row = await until(
        async () =>
          (
            await db().query(
              `SELECT status, sent_contacts, next_send_at, locked_by FROM campaigns WHERE id = $1`,
              [c.id],
            )
          ).rows[0],
        // Settled: the send counted and its lease given back (two statements apart).
        (settled) => settled.sent_contacts === 1 && settled.locked_by === null,
      );
      expect(row).toEqual({
        status: 'CANCELLED',
        sent_contacts: 1,
        next_send_at: null,
        locked_by: null,
      });
    } finally {
      fake.setResponseDelay(0);
    }
  });

  it('fails a number the gateway refuses at once, without retrying it', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    fake.refuseNumber('5511987650002');
    const c = await createCampaign(company, campaignBody(fake, gw));
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 1, successRate: 66.67 });
    const refused = (await contactsOf(company, c.id)).find(
      (x) => x.phoneNumber === '5511987650002',
    );
    expect(refused).toMatchObject({
      status: 'FAILED',
      failureReason: 'número não está no WhatsApp',
      retryCount: 1,
    });
    expect(refused?.failedAt).toMatch(/^\d{4}-/);
    expect(refused?.sentAt).toBeUndefined();
    const attempts = fake.requests.filter(
      (r) => r.instance === gw.instance && (r.body as any)?.number === '5511987650002',
    );
    expect(attempts).toHaveLength(1);
  });

  it('retries a transient gateway failure and counts the attempts', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, { contacts: [{ phoneNumber: '11987653001', name: 'Ana' }] }),
    );
    fake.failNext(1, 503);
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 90_000);
    expect(done.sentContacts).toBe(1);
    const [contact] = await contactsOf(company, c.id);
    expect(contact).toMatchObject({ status: 'SENT', retryCount: 2 });
    expect(fake.sentTo('5511987653001')).toHaveLength(1);
  });

  it('fails the campaign when the gateway refuses the key, keeping the rest pending, with event and notice', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, {
        contacts: phones(3, 300),
        intervalMinSeconds: 1,
        intervalMaxSeconds: 1,
        notificationPhone: '11999991111',
      }),
    );
    await fake.waitForSent(fake.sent.length + 1);
    fake.removeInstance(gw.instance);
    fake.addInstance(gw.instance, { apiKey: 'rotated-key', state: 'open' });
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED');
    expect(failed.message).toMatch(/chave|credenciais/i);
    expect(failed.pendingContacts).toBeGreaterThan(0);
    const contacts = await contactsOf(company, c.id);
    expect(contacts.filter((x) => x.status === 'PENDING').length).toBe(failed.pendingContacts);
    const events = await eventsOf(c.id);
    const failedEvent = events.find((e) => e.event_type === 'campaign.failed');
    expect(failedEvent?.payload.reason).toBe(failed.message);
    const { rows } = await db().query(
      `SELECT reason, phone_number FROM notices WHERE company_id = $1`,
      [company.id],
    );
    expect(rows).toEqual([{ reason: 'campaign_failed', phone_number: '5511999991111' }]);
  });

  it('waits while the instance is disconnected and goes on when it reconnects, notifying once', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, {
        contacts: phones(3, 400),
        intervalMinSeconds: 1,
        intervalMaxSeconds: 1,
        notificationPhone: '11999992222',
      }),
    );
    await fake.waitForSent(fake.sent.length + 1);
    fake.setState(gw.instance, 'close');
    await waitForDisconnection(c.id);
    const during = (await company.get(`/api/campaigns/${c.id}`)).body;
    expect(during.status).toBe('ACTIVE');
    fake.setState(gw.instance, 'open');
    const done = await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED', 90_000);
    expect(done).toMatchObject({ sentContacts: 3, failedContacts: 0 });
    const { rows } = await db().query(
      `SELECT reason FROM notices WHERE company_id = $1 ORDER BY id`,
      [company.id],
    );
    expect(rows.map((r: { reason: string }) => r.reason)).toEqual([
      'instance_disconnected',
      'campaign_completed',
    ]);
    const campaignTexts = fake.sent.filter(
      (s) => s.instance === gw.instance && s.number !== '5511999992222',
    );
    expect(campaignTexts).toHaveLength(3);
  });

  it('fails the campaign when the instance stays disconnected longer than 10 minutes', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, {
        contacts: phones(2, 500),
        intervalMinSeconds: 1,
        intervalMaxSeconds: 1,
      }),
    );
    await fake.waitForSent(fake.sent.length + 1);
    fake.setState(gw.instance, 'close');
    await waitForDisconnection(c.id);
    await db().query(
      `UPDATE campaigns SET disconnected_since = now() - interval '11 minutes', next_send_at = now() WHERE id = $1`,
      [c.id],
    );
    const failed = await waitForCampaign(company, c.id, (x) => x.status === 'FAILED', 90_000);
    expect(failed.message).toMatch(/10 minutos/);
    expect(failed.pendingContacts).toBe(1);
  });

  it('sends the end-of-campaign notice to notificationPhone through the same instance', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, {
        contacts: phones(3, 600),
        notificationPhone: '(11) 99999-3333',
      }),
    );
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    const notices = await until(
      () => fake.sentTo('5511999993333').filter((s) => s.instance === gw.instance),
      (sent) => sent.length >= 1,
      15_000,
    );
    expect(notices[0].body.text).toMatch(/concluída: 3 enviadas, 0 com falha/);
  });

  it('sends each message kind with the body the gateway expects', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const contacts = [{ phoneNumber: '11987654001', name: 'Beatriz Costa' }];
    // Creation fetches a media URL's first byte to see where it leads: any answer that is no
    // redirect will do, the fake's own 404 included.
    const image = await company
      .post(
        '/api/campaigns',
        campaignBody(fake, gw, { contacts, mediaUrl: `${fake.url}/midia/oferta.png` }),
      )
      .expect(200);
    expect(image.body).toMatchObject({ type: 'MEDIA', mediaType: 'image' });
    const audio = await company
      .post(
        '/api/campaigns',
        campaignBody(fake, gw, {
          contacts,
          mediaUrl: `${fake.url}/midia/aviso.mp3`,
          message: 'Ouça, {NomeCompleto}!',
        }),
      )
      .expect(200);
    expect(audio.body.mediaType).toBe('audio');
    const pdfBase64 = Buffer.from('%PDF-1.4 teste').toString('base64');
    const document = await company
      .post(
        '/api/campaigns',
        campaignBody(fake, gw, {
          contacts,
          mediaUrl: `data:application/pdf;base64,${pdfBase64}`,
          fileName: 'catalogo.pdf',
          caption: 'Catálogo de {PrimeiroNome}',
        }),
      )
      .expect(200);
    expect(document.body.mediaType).toBe('document');
    const poll = await company
      .post(
        '/api/campaigns',
        campaignBody(fake, gw, {
          contacts,
          message: undefined,
          pollData: {
            name: 'Melhor horário, {PrimeiroNome}?',
            options: ['Manhã', 'Tarde'],
            selectableCount: 1,
          },
        }),
      )
      .expect(200);
    expect(poll.body.type).toBe('POLL');
    for (const id of [image.body.id, audio.body.id, document.body.id, poll.body.id]) {
      await waitForCampaign(company, id, (x) => x.status === 'COMPLETED');
    }
    const sent = fake.sentTo('5511987654001').filter((s) => s.instance === gw.instance);
    const byEndpoint = (endpoint: string): Array<Record<string, unknown>> =>
      sent.filter((s) => s.endpoint === endpoint).map((s) => s.body);
    expect(byEndpoint('sendMedia')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          mediatype: 'image',
          media: `${fake.url}/midia/oferta.png`,
          caption: 'Olá Beatriz, tudo bem?',
        }),
        expect.objectContaining({
          mediatype: 'document',
          media: pdfBase64,
          fileName: 'catalogo.pdf',
          caption: 'Catálogo de Beatriz',
          mimetype: 'application/pdf',
        }),
      ]),
    );
    expect(byEndpoint('sendWhatsAppAudio')).toEqual([
      expect.objectContaining({ audio: `${fake.url}/midia/aviso.mp3` }),
    ]);
    expect(byEndpoint('sendText').map((b) => b.text)).toEqual(['Ouça, Beatriz Costa!']);
    expect(byEndpoint('sendPoll')).toEqual([
      expect.objectContaining({
        name: 'Melhor horário, Beatriz?',
        values: ['Manhã', 'Tarde'],
        selectableCount: 1,
      }),
    ]);
  });

  it('refuses to delete a gateway configuration a live campaign uses', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const c = await createCampaign(
      company,
      campaignBody(fake, gw, { scheduledFor: '2099-01-01T10:00:00' }),
    );
    expectErrorBody(await company.delete(`/api/gateway-configs/${c.gatewayConfig.id}`), 400);
    await company.put(`/api/campaigns/${c.id}/cancel`).expect(200);
    await company.delete(`/api/gateway-configs/${c.gatewayConfig.id}`).expect(204);
  });

  it('reports the engine in the health endpoint’s queue component', async () => {
    const health = await t.http
      .get('/actuator/health')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`)
      .expect(200);
    expect(health.body.components.queue).toMatchObject({
      status: 'UP',
      details: {
        broker: 'PostgreSQL',
        dispatcher: 'running',
        campaignsInFlight: expect.any(Number),
        dueCampaigns: expect.any(Number),
        lagSeconds: expect.any(Number),
      },
    });
    expect(new Date(health.body.components.queue.details.lastTickAt).getTime()).toBeGreaterThan(
      Date.now() - 60_000,
    );
  });
});

/** Until the engine has seen the campaign's instance disconnected. */
async function waitForDisconnection(campaignId: number): Promise<void> {
  await until(
    async () =>
      (await db().query(`SELECT disconnected_since FROM campaigns WHERE id = $1`, [campaignId]))
        .rows[0].disconnected_since,
    (since) => since !== null,
    15_000,
  );
}
