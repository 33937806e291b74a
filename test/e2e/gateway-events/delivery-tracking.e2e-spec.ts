import { DateTime } from 'luxon';
import { connectedInstance, phones, waitForCampaign } from '../../support/campaigns';
import { countRows, db } from '../../support/db';
import { useE2eFixture } from '../../support/e2e-fixture';
import { expectErrorBody } from '../../support/error-body';
import {
  EVENTS_SECRET_HEADER as SECRET_HEADER,
  startCampaign,
  trackedConfig,
} from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { sleep, until } from '../../support/waiting';

/**
 * Hearing back from WhatsApp: the service registers its webhook on the Evolution instance, and
 * the fake gateway posts real-shaped events (Evolution API v2.3.6 `sendDataWebhook`) to it.
 */
describe('delivery tracking through the gateway’s events', () => {
  const { t, fake } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  it('registers its own webhook on the instance, with a secret header, and removes only its own', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const webhook = fake.webhookOf(config.instance);
    expect(webhook).toMatchObject({
      enabled: true,
      url: `${t.config.publicBaseUrl}/api/gateway-events/${config.id}`,
      events: ['MESSAGES_UPDATE', 'MESSAGES_UPSERT', 'CONNECTION_UPDATE'],
      byEvents: false,
      base64: false,
    });
    expect(webhook?.headers[SECRET_HEADER]).toMatch(/^[\w-]{40,}$/);
    const { rows } = await db().query(
      `SELECT track_delivery, events_secret_hash FROM gateway_configs WHERE id = $1`,
      [config.id],
    );
    expect(rows[0].track_delivery).toBe(true);
    expect(rows[0].events_secret_hash).not.toContain(webhook?.headers[SECRET_HEADER]);

    const off = await company
      .put(`/api/gateway-configs/${config.id}`, { trackDelivery: false })
      .expect(200);
    expect(off.body.trackDelivery).toBe(false);
    expect(fake.webhookOf(config.instance)).toMatchObject({ enabled: false, events: [] });

    const foreign = {
      enabled: true,
      url: 'https://crm.example.com/hook',
      headers: {},
      events: [],
      byEvents: false,
      base64: false,
    };
    fake.setWebhook(config.instance, foreign);
    await company.put(`/api/gateway-configs/${config.id}`, { trackDelivery: false }).expect(200);
    expect(fake.webhookOf(config.instance)).toEqual(foreign);
  });

  it('refuses to replace another system’s webhook unless asked to, creating nothing', async () => {
    const company = await TestCompany.register(t.http);
    const gw = connectedInstance(fake);
    const foreign = {
      enabled: true,
      url: 'https://crm.example.com/hook',
      headers: {},
      events: [],
      byEvents: false,
      base64: false,
    };
    fake.setWebhook(gw.instance, foreign);
    const body = {
      name: 'P',
      url: fake.url,
      apiKey: gw.apiKey,
      instance: gw.instance,
      trackDelivery: true,
    };
    const refused = await company.post('/api/gateway-configs', body).expect(400);
    expect(expectErrorBody(refused, 400, '/api/gateway-configs')).toMatch(
      /trackDelivery=.*replaceGatewayWebhook/,
    );
    expect(await countRows('gateway_configs', 'company_id = $1', [company.id])).toBe(0);
    expect(fake.webhookOf(gw.instance)).toEqual(foreign);

    await company
      .post('/api/gateway-configs', { ...body, replaceGatewayWebhook: true })
      .expect(201);
    expect(fake.webhookOf(gw.instance)?.url).toMatch(/\/api\/gateway-events\/\d+$/);
  });

  it('answers 401 to an event without the secret, for another instance or with another key, storing nothing', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const secret = fake.webhookOf(config.instance)?.headers[SECRET_HEADER] as string;
    const path = `/api/gateway-events/${config.id}`;
    const event = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
      event: 'messages.update',
      instance: config.instance,
      data: { keyId: 'X', status: 'READ' },
      apikey: null,
      ...overrides,
    });
    const before = await countRows('gateway_events');
    for (const [headers, body] of [
      [{}, event()],
      [{ [SECRET_HEADER]: 'wrong-secret' }, event()],
      [{ [SECRET_HEADER]: secret }, event({ instance: 'outra-instancia' })],
      [{ [SECRET_HEADER]: secret }, event({ apikey: 'another-key' })],
    ] as const) {
      const response = await t.http.post(path).set(headers).send(body);
      expectErrorBody(response, 401, path);
    }
    expectErrorBody(
      await t.http.post('/api/gateway-events/999999').set(SECRET_HEADER, secret).send(event()),
      401,
    );
    expect(await countRows('gateway_events')).toBe(before);
    await t.http
      .post(path)
      .set(SECRET_HEADER, secret)
      .send(event({ apikey: config.apiKey }))
      .expect(200, { received: true });
  });

  it('counts receipts out of order and repeated, never moving back, and shows them per contact', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const c = await startCampaign(company, config.id, { contacts: phones(3, 9100) });
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    const { rows } = await db().query(
      `SELECT phone_number, gateway_message_id FROM campaign_contacts WHERE campaign_id = $1 ORDER BY id`,
      [c.id],
    );
    const [first, second, third] = rows.map(
      (r: { gateway_message_id: string }) => r.gateway_message_id,
    );
    // Receipts of the last hour: the gateway's clock is believed, unless it is in the future.
    const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
    const at = (seconds: number): Date => new Date(base + seconds * 1000);
    const local = (date: Date): string =>
      DateTime.fromJSDate(date, { zone: 'America/Sao_Paulo' }).toFormat("yyyy-MM-dd'T'HH:mm:ss");
    const update = (keyId: string, status: string, when: Date): Promise<number | null> =>
      fake.emit(
        config.instance,
        'messages.update',
        {
          keyId,
          remoteJid: `${rows[0].phone_number}@s.whatsapp.net`,
          fromMe: true,
          participant: null,
          status,
          instanceId: 'fake',
          messageId: 'row',
        },
        { dateTime: when },
      );
    expect(await update(first, 'READ', at(30))).toBe(200);
    expect(await update(first, 'DELIVERY_ACK', at(10))).toBe(200);
    expect(await update(first, 'READ', at(40))).toBe(200);
    expect(await update(second, 'SERVER_ACK', at(5))).toBe(200);
    expect(await update(second, 'DELIVERY_ACK', at(20))).toBe(200);
    expect(await update(third, 'PLAYED', at(50))).toBe(200);
    expect(await update('3EB0UNKNOWN', 'READ', at(50))).toBe(200);

    const counted = await until(
      async () => (await company.get(`/api/campaigns/${c.id}`)).body,
      (x) => x.deliveredContacts === 3 && x.readContacts === 2,
    );
    expect(counted).toMatchObject({ deliveryRate: 100, readRate: 66.7, sentContacts: 3 });
    const contacts = (await company.get(`/api/campaigns/${c.id}/contacts`).expect(200)).body;
    // READ implies delivered, at the time of the first receipt that said so; never moved back.
    expect(contacts[0].deliveredAt).toBe(contacts[0].readAt);
    expect(contacts[0].readAt).toBe(local(at(30)));
    expect(contacts[1]).toMatchObject({ deliveredAt: local(at(20)) });
    expect(contacts[1].readAt).toBeUndefined();
    expect(contacts[2]).toMatchObject({ playedAt: local(at(50)), readAt: local(at(50)) });
    const stored = await until(
      () => countRows('gateway_events', 'company_id = $1', [company.id]),
      (n) => n <= 1,
    );
    expect(stored).toBeLessThanOrEqual(1);
  });

  it('blocks a number that answers an opt-out word, skips it in running campaigns and confirms once', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    await company
      .patch(`/api/companies/${company.id}/settings`, {
        optOutConfirmation: 'Pronto, você não receberá mais mensagens.',
      })
      .expect(200);
    const [person] = phones(1, 9200);
    const answered = await startCampaign(company, config.id, { contacts: [person] });
    await waitForCampaign(company, answered.id, (x) => x.status === 'COMPLETED');
    const others = phones(2, 9300);
    const running = await startCampaign(company, config.id, {
      contacts: [others[0], person, others[1]],
      intervalMinSeconds: 2,
      intervalMaxSeconds: 2,
    });
    await until(
      () => Promise.resolve(fake.sentTo(others[0].phoneNumber).length),
      (n) => n === 1,
    );
    const reply = (text: string): Promise<number | null> =>
      fake.emit(config.instance, 'messages.upsert', {
        key: {
          remoteJid: `${person.phoneNumber}@s.whatsapp.net`,
          fromMe: false,
          id: `IN${text.length}`,
        },
        pushName: 'Cliente',
        message: { conversation: text },
        messageType: 'conversation',
        messageTimestamp: Math.floor(Date.now() / 1000),
      });
    expect(await reply('  Descadastrár ')).toBe(200);
    expect(await reply('SAIR')).toBe(200);

    const done = await waitForCampaign(
      company,
      running.id,
      (x) => x.status === 'COMPLETED',
      30_000,
    );
    expect(done).toMatchObject({ sentContacts: 2, failedContacts: 1 });
    const contacts = (await company.get(`/api/campaigns/${running.id}/contacts`).expect(200)).body;
    expect(contacts[1]).toMatchObject({
      status: 'FAILED',
      failureReason: expect.stringMatching(/bloqueado/),
    });
    const { rows: blocked } = await db().query(
      `SELECT blocked_by, is_active FROM blocked_contacts WHERE company_id = $1 AND phone_number = $2`,
      [company.id, person.phoneNumber],
    );
    expect(blocked).toEqual([{ blocked_by: 'OPT_OUT', is_active: true }]);
    const counted = (await company.get(`/api/campaigns/${answered.id}`).expect(200)).body;
    expect(counted.optedOutContacts).toBe(1);
    const { rows: events } = await db().query(
      `SELECT payload FROM outbox_events WHERE company_id = $1 AND event_type = 'contact.opted_out'`,
      [company.id],
    );
    expect(events).toEqual([
      {
        payload: expect.objectContaining({
          phoneNumber: person.phoneNumber,
          campaignId: answered.id,
        }),
      },
    ]);
    await until(
      () =>
        Promise.resolve(
          fake
            .sentTo(person.phoneNumber)
            .filter((s) => s.body.text === 'Pronto, você não receberá mais mensagens.').length,
        ),
      (n) => n === 1,
    );
    // A real span: the opt-out is answered once, and nothing follows in the next half second.
    await sleep(500);
    const messages = fake.sentTo(person.phoneNumber).map((s) => s.body.text);
    expect(messages).toEqual(['Olá Contato', 'Pronto, você não receberá mais mensagens.']);
  });

  it('holds an instance’s campaigns on connection close, resumes on open, and pauses them on logout', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, fake);
    const c = await startCampaign(company, config.id, {
      contacts: phones(8, 9400),
      intervalMinSeconds: 1,
      intervalMaxSeconds: 1,
    });
    await fake.waitForSent(fake.sent.length + 1);
    expect(
      await fake.emit(config.instance, 'connection.update', {
        instance: config.instance,
        state: 'close',
        statusReason: 428,
      }),
    ).toBe(200);
    await until(
      async () => (await company.get(`/api/gateway-configs/${config.id}`)).body.instanceState,
      (state) => state === 'close',
      3_000,
    );
    const ours = (): number => fake.sent.filter((s) => s.instance === config.instance).length;
    const atClose = ours();
    // A real span: two of its 1 s pauses go by, at most the send in flight getting through.
    await sleep(2_500);
    expect(ours()).toBeLessThanOrEqual(atClose + 1);
    const held = ours();

    await fake.emit(config.instance, 'connection.update', {
      instance: config.instance,
      state: 'open',
    });
    await fake.waitForSent(fake.sent.length + 1, 10_000);
    expect(ours()).toBeGreaterThan(held);

    await fake.emit(config.instance, 'connection.update', {
      instance: config.instance,
      state: 'close',
      statusReason: 401,
    });
    const paused = await waitForCampaign(company, c.id, (x) => x.status === 'PAUSED', 10_000);
    expect(paused.pauseReason).toMatch(/logout/);
    expect(paused.message).toBe(paused.pauseReason);
    const atLogout = ours();
    // A real span: two of its 1 s pauses go by, at most the send in flight getting through.
    await sleep(2_000);
    expect(ours()).toBeLessThanOrEqual(atLogout + 1);
  });
});
