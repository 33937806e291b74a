import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { phones, waitForCampaign } from '../../support/campaigns';
import { useE2eFixture } from '../../support/e2e-fixture';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';
import { startCampaign, trackedConfig } from '../../support/gateway-events';
import { TestCompany } from '../../support/test-app';
import { until } from '../../support/waiting';

/**
 * Holds the fake gateway's event builders to the shapes Evolution API v2.3.6 (commit 3454bec)
 * posts, field by field: what is present and what is absent. The shapes come from its source
 * (whatsapp.baileys.service.ts, with Baileys 7.0.0-rc.6) and are cited in the fake; no
 * delivery webhook could be recorded from the real gateway (no WhatsApp behind it).
 * The fake posts to a plain receiver, with no service in between; last, the service takes
 * the built receipts of a campaign's message.
 */

const INSTANCE = 'loja';
const TOKEN = 'token-loja';
const NUMBER = '5511987654321';
const NUMBER_JID = `${NUMBER}@s.whatsapp.net`;
const ENVELOPE = [
  'event',
  'instance',
  'data',
  'destination',
  'date_time',
  'sender',
  'server_url',
  'apikey',
];

interface Posted {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
}

describe('the fake gateway’s built events, as v2.3.6 posts them', () => {
  let fake: FakeEvolutionApi;
  let receiver: Server;
  let receiverUrl: string;
  const posted: Posted[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>;
        posted.push({ path: req.url ?? '/', headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/evolution`;
    fake = new FakeEvolutionApi();
    await fake.start();
  });

  afterAll(async () => {
    await fake.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  beforeEach(async () => {
    fake.reset();
    fake.removeInstance(INSTANCE);
    fake.addInstance(INSTANCE, { apiKey: TOKEN });
    posted.length = 0;
    await subscribe({ base64: false });
  });

  /** Sets the instance's webhook through the fake's own route, as the service does. */
  async function subscribe(options: { base64: boolean }): Promise<void> {
    const response = await call('POST', `/webhook/set/${INSTANCE}`, {
      webhook: {
        enabled: true,
        url: receiverUrl,
        headers: { 'x-secret': 's3cr3t' },
        events: ['MESSAGES_UPDATE', 'MESSAGES_UPSERT'],
        base64: options.base64,
      },
    });
    expect(response.status).toBe(201);
  }

  async function call(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${fake.url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', apikey: TOKEN },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** Sends a text through the fake; answers the key id it answered. */
  async function sendText(number = NUMBER): Promise<string> {
    const response = await call('POST', `/message/sendText/${INSTANCE}`, { number, text: 'Olá' });
    expect(response.status).toBe(201);
    return ((await response.json()) as { key: { id: string } }).key.id;
  }

  async function instanceId(): Promise<string> {
    const rows = (await (await call('GET', '/instance/fetchInstances')).json()) as Array<{
      id: string;
    }>;
    return rows[0].id;
  }

  /** The gateway's row id of a sent message, as findMessages answers it. */
  async function rowIdOf(keyId: string): Promise<string> {
    const response = await call('POST', `/chat/findMessages/${INSTANCE}`, {
      where: { key: { id: keyId } },
    });
    const body = (await response.json()) as { messages: { records: Array<{ id: string }> } };
    return body.messages.records[0].id;
  }

  function only(): Posted {
    expect(posted).toHaveLength(1);
    return posted[0];
  }

  describe('emitReceipt', () => {
    it('posts messages.update for the key id the send answered, in the v2.3.6 envelope', async () => {
      const keyId = await sendText();
      expect(fake.sent[0].messageId).toBe(keyId);
      const at = new Date('2026-01-15T12:00:00.000Z');

      expect(await fake.emitReceipt(INSTANCE, keyId, 'DELIVERY_ACK', { dateTime: at })).toBe(200);

      const { path, headers, body } = only();
      expect(path).toBe('/evolution');
      expect(headers['x-secret']).toBe('s3cr3t');
      expect(Object.keys(body)).toEqual(ENVELOPE);
      expect(body).toMatchObject({
        event: 'messages.update',
        instance: INSTANCE,
        destination: receiverUrl,
        date_time: at.toISOString(),
        sender: expect.stringMatching(/@s\.whatsapp\.net$/),
        server_url: fake.url,
        apikey: null,
      });
      expect(Object.keys(body.data)).toEqual([
        'keyId',
        'remoteJid',
        'fromMe',
        'status',
        'instanceId',
        'messageId',
      ]);
      expect(body.data).toEqual({
        keyId,
        remoteJid: NUMBER_JID,
        fromMe: true,
        status: 'DELIVERY_ACK',
        instanceId: await instanceId(),
        messageId: await rowIdOf(keyId),
      });
      // A one-to-one receipt has no participant, and only a poll's has pollUpdates.
      expect(body.data).not.toHaveProperty('participant');
      expect(body.data).not.toHaveProperty('pollUpdates');
    });

    it('posts each status once per message, as the gateway drops repeats', async () => {
      const keyId = await sendText();
      for (const status of ['SERVER_ACK', 'DELIVERY_ACK', 'READ', 'PLAYED'] as const) {
        expect(await fake.emitReceipt(INSTANCE, keyId, status)).toBe(200);
      }
      expect(await fake.emitReceipt(INSTANCE, keyId, 'READ')).toBeNull();

      expect(posted.map((p) => p.body.data.status)).toEqual([
        'SERVER_ACK',
        'DELIVERY_ACK',
        'READ',
        'PLAYED',
      ]);
      expect(new Set(posted.map((p) => p.body.data.keyId))).toEqual(new Set([keyId]));
    });

    it('names the chat by its LID when told, the key id staying the one answered', async () => {
      const keyId = await sendText();

      await fake.emitReceipt(INSTANCE, keyId, 'READ', { remoteJid: '123456789012345@lid' });

      expect(only().body.data).toMatchObject({ keyId, remoteJid: '123456789012345@lid' });
    });

    it('has no messageId when the gateway does not store messages', async () => {
      fake.storesMessages = false;
      const keyId = await sendText();

      await fake.emitReceipt(INSTANCE, keyId, 'DELIVERY_ACK');

      expect(Object.keys(only().body.data)).toEqual([
        'keyId',
        'remoteJid',
        'fromMe',
        'status',
        'instanceId',
      ]);
    });

    it('posts nothing for a message the storing gateway cannot find', async () => {
      expect(await fake.emitReceipt(INSTANCE, '3EB0000000000000000000', 'READ')).toBeNull();
      expect(posted).toHaveLength(0);
    });
  });

  describe('emitNack', () => {
    it('posts status ERROR without the NACK code, as v2.3.6 drops it', async () => {
      const keyId = await sendText();

      expect(await fake.emitNack(INSTANCE, keyId, { code: '463' })).toBe(200);

      const { body } = only();
      expect(body.event).toBe('messages.update');
      expect(body.data).toEqual({
        keyId,
        remoteJid: NUMBER_JID,
        fromMe: true,
        status: 'ERROR',
        instanceId: await instanceId(),
        messageId: await rowIdOf(keyId),
      });
      expect(body.data).not.toHaveProperty('messageStubParameters');
    });

    it('forwards the code in messageStubParameters only when asked, as a newer gateway might', async () => {
      const first = await sendText();
      const second = await sendText('5511912345678');

      await fake.emitNack(INSTANCE, first, { forwardStubParameters: true });
      await fake.emitNack(INSTANCE, second, { code: '479', forwardStubParameters: true });

      expect(posted.map((p) => p.body.data)).toEqual([
        expect.objectContaining({ keyId: first, status: 'ERROR', messageStubParameters: ['463'] }),
        expect.objectContaining({ keyId: second, status: 'ERROR', messageStubParameters: ['479'] }),
      ]);
    });
  });

  describe('emitInbound', () => {
    it('posts a phone text as conversation, keyed by the number, with no alternative JID', async () => {
      const at = new Date('2026-01-15T12:00:00.000Z');

      const id = await fake.emitInbound(INSTANCE, {
        from: NUMBER,
        text: 'Quero sair',
        dateTime: at,
      });

      const { body } = only();
      expect(Object.keys(body)).toEqual(ENVELOPE);
      expect(body.event).toBe('messages.upsert');
      expect(Object.keys(body.data)).toEqual([
        'key',
        'pushName',
        'status',
        'message',
        'messageType',
        'messageTimestamp',
        'instanceId',
        'source',
      ]);
      expect(body.data).toEqual({
        key: { remoteJid: NUMBER_JID, fromMe: false, id, addressingMode: 'pn' },
        pushName: 'Maria Souza',
        status: 'DELIVERY_ACK',
        message: {
          conversation: 'Quero sair',
          messageContextInfo: { deviceListMetadataVersion: 2 },
        },
        messageType: 'conversation',
        messageTimestamp: at.getTime() / 1000,
        instanceId: await instanceId(),
        source: 'android',
      });
      expect(id).toMatch(/^[0-9A-F]{32}$/);
    });

    it('keys a LID-addressed message by the LID, the number in remoteJidAlt and no senderPn', async () => {
      await fake.emitInbound(INSTANCE, { from: NUMBER, text: 'Oi', lid: '123456789012345' });

      const { key } = only().body.data;
      expect(key).toEqual({
        remoteJid: '123456789012345@lid',
        remoteJidAlt: NUMBER_JID,
        fromMe: false,
        id: expect.any(String),
        addressingMode: 'lid',
      });
      expect(key).not.toHaveProperty('senderPn');
      expect(key).not.toHaveProperty('participant');
    });

    it('keys a number-addressed message by the number, the LID in remoteJidAlt', async () => {
      await fake.emitInbound(INSTANCE, {
        from: NUMBER,
        text: 'Oi',
        lid: '123456789012345@lid',
        addressing: 'pn',
      });

      expect(only().body.data.key).toMatchObject({
        remoteJid: NUMBER_JID,
        remoteJidAlt: '123456789012345@lid',
        addressingMode: 'pn',
      });
    });

    it('flattens an extendedTextMessage into conversation, as prepareMessage does', async () => {
      await fake.emitInbound(INSTANCE, {
        from: NUMBER,
        text: 'veja https://x.y',
        kind: 'extendedText',
      });

      const { data } = only().body;
      expect(data.messageType).toBe('conversation');
      expect(data.message).toEqual({
        messageContextInfo: { deviceListMetadataVersion: 2 },
        conversation: 'veja https://x.y',
      });
    });

    it('posts an image with its caption in imageMessage, without one when it has none', async () => {
      await fake.emitInbound(INSTANCE, { from: NUMBER, kind: 'image', caption: 'PARAR' });
      await fake.emitInbound(INSTANCE, { from: NUMBER, kind: 'image' });

      const [captioned, bare] = posted.map((p) => p.body.data);
      expect(captioned.messageType).toBe('imageMessage');
      expect(Object.keys(captioned.message)).toEqual(['imageMessage', 'messageContextInfo']);
      expect(captioned.message.imageMessage).toMatchObject({
        mimetype: 'image/jpeg',
        caption: 'PARAR',
        url: expect.stringMatching(/^https:\/\/mmg\.whatsapp\.net\//),
      });
      expect(bare.message.imageMessage).not.toHaveProperty('caption');
      expect(captioned).not.toHaveProperty('contextInfo');
    });

    it('adds the media as base64 when the webhook asks for it', async () => {
      await subscribe({ base64: true });

      await fake.emitInbound(INSTANCE, { from: NUMBER, kind: 'image' });

      expect(only().body.data.message.base64).toEqual(expect.any(String));
    });

    it('has a null pushName for a sender without a WhatsApp name', async () => {
      await fake.emitInbound(INSTANCE, { from: NUMBER, text: 'Oi', pushName: '' });

      expect(only().body.data.pushName).toBeNull();
    });
  });
});

describe('the service hearing the built receipts', () => {
  const { t, fake: served } = useE2eFixture({ publicBaseUrl: true, noRefusals: true });

  it('counts a campaign message delivered and read from emitReceipt, by the key id it sent', async () => {
    const company = await TestCompany.register(t.http);
    const config = await trackedConfig(company, served);
    const c = await startCampaign(company, config.id, { contacts: phones(1, 9300) });
    await waitForCampaign(company, c.id, (x) => x.status === 'COMPLETED');
    const [sent] = served.sent;

    expect(await served.emitReceipt(config.instance, sent.messageId, 'DELIVERY_ACK')).toBe(200);
    expect(await served.emitReceipt(config.instance, sent.messageId, 'READ')).toBe(200);

    const counted = await until(
      async () => (await company.get(`/api/campaigns/${c.id}`)).body,
      (x) => x.readContacts === 1,
    );
    expect(counted).toMatchObject({ deliveredContacts: 1, readContacts: 1 });
  });
});
