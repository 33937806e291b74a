import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metrics } from '../../../src/common/metrics/metrics';
import { OutboundHttpClient } from '../../../src/common/outbound/outbound-http.client';
import { OutboundTargetGuard } from '../../../src/common/outbound/outbound-target.guard';
import { loadAppConfig } from '../../../src/config/app-config.loader';
import {
  GatewayError,
  GatewayErrorKind,
  EvolutionTarget,
  MessagingGateway,
  OutgoingMessage,
} from '../../../src/modules/gateway/domain/messaging-gateway';
import { EvolutionApiGateway } from '../../../src/modules/gateway/infrastructure/evolution-api.gateway';
import {
  FakeEvolutionApi,
  FakeInstanceState,
  FakeMediaFetchFailure,
} from '../../support/fake-evolution-api';
import { samplesOf, total } from '../../support/prometheus';

const API_KEY = 'chave-da-instancia-7F3A';
const NUMBER = '5511987654321';

/** One registry for every adapter of this file (each application has its own). */
const metrics = new Metrics();

/** The adapter exactly as the application wires it, over real HTTP. */
function gatewayWith(
  outboundDenyPrivate: boolean,
  env: Record<string, string> = {},
): MessagingGateway {
  const config = loadAppConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'gateway-e2e-')),
    ADMIN_PASSWORD: 'test-admin-password-0123',
    OUTBOUND_DENY_PRIVATE: String(outboundDenyPrivate),
    ...env,
  });
  return new EvolutionApiGateway(
    new OutboundHttpClient(new OutboundTargetGuard(config)),
    config,
    metrics,
  );
}

async function failureOf(work: Promise<unknown>): Promise<GatewayError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof GatewayError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected the gateway call to fail');
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('EvolutionApiGateway against the fake Evolution API', () => {
  const fake = new FakeEvolutionApi();
  const gateway = gatewayWith(false);
  let target: EvolutionTarget;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    fake.reset();
    fake.addInstance('acme-sales', { apiKey: API_KEY, state: 'open' });
    target = { url: fake.url, apiKey: API_KEY, instance: 'acme-sales' };
  });

  describe('send', () => {
    it('sends a text with the apikey header and returns the gateway message id', async () => {
      const sent = await gateway.send(target, NUMBER, {
        kind: 'text',
        text: 'Olá Maria, seu pedido saiu.',
      });
      expect(fake.requests).toHaveLength(1);
      const [request] = fake.requests;
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/message/sendText/acme-sales');
      expect(request.headers.apikey).toBe(API_KEY);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.body).toEqual({ number: NUMBER, text: 'Olá Maria, seu pedido saiu.' });
      expect(fake.sent).toHaveLength(1);
      expect(sent).toEqual({
        messageId: fake.sent[0].messageId,
        remoteJid: `${NUMBER}@s.whatsapp.net`,
      });
    });

    it('passes delayMs as the gateway delay', async () => {
      await gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' }, { delayMs: 1200 });
      expect(fake.sent[0].body).toEqual({ number: NUMBER, text: 'Oi', delay: 1200 });
    });

    it('sends media by URL with every field', async () => {
      await gateway.send(target, NUMBER, {
        kind: 'media',
        mediaType: 'document',
        media: 'https://files.example.com/inv-881.pdf',
        mimeType: 'application/pdf',
        fileName: 'fatura-881.pdf',
        caption: 'Sua fatura',
      });
      expect(fake.requests[0].path).toBe('/message/sendMedia/acme-sales');
      expect(fake.sent[0].body).toEqual({
        number: NUMBER,
        mediatype: 'document',
        media: 'https://files.example.com/inv-881.pdf',
        mimetype: 'application/pdf',
        fileName: 'fatura-881.pdf',
        caption: 'Sua fatura',
      });
    });

    it('strips a data: URI to raw base64 and keeps its media type as the mimetype', async () => {
      const base64 = Buffer.from('not really a png').toString('base64');
      await gateway.send(target, NUMBER, {
        kind: 'media',
        mediaType: 'image',
        media: `data:image/png;base64,${base64}`,
      });
      expect(fake.sent[0].endpoint).toBe('sendMedia');
      expect(fake.sent[0].body).toEqual({
        number: NUMBER,
        mediatype: 'image',
        media: base64,
        mimetype: 'image/png',
      });
    });

    it('sends a voice note, stripping a data: URI', async () => {
      const base64 = Buffer.from('OggS fake opus').toString('base64');
      await gateway.send(target, NUMBER, {
        kind: 'audio',
        audio: `data:audio/ogg;base64,${base64}`,
      });
      expect(fake.requests[0].path).toBe('/message/sendWhatsAppAudio/acme-sales');
      expect(fake.sent[0].body).toEqual({ number: NUMBER, audio: base64 });
    });

    it('sends a poll as name, selectableCount and values', async () => {
      await gateway.send(target, NUMBER, {
        kind: 'poll',
        name: 'Melhor horário?',
        options: ['Manhã', 'Tarde', 'Noite'],
        selectableCount: 1,
      });
      expect(fake.requests[0].path).toBe('/message/sendPoll/acme-sales');
      expect(fake.sent[0].body).toEqual({
        number: NUMBER,
        name: 'Melhor horário?',
        selectableCount: 1,
        values: ['Manhã', 'Tarde', 'Noite'],
      });
    });

    it('URL-encodes the instance name', async () => {
      fake.addInstance('loja 1/vendas', { apiKey: API_KEY });
      await gateway.send({ ...target, instance: 'loja 1/vendas' }, NUMBER, {
        kind: 'text',
        text: 'Oi',
      });
      expect(fake.requests[0].path).toBe('/message/sendText/loja%201%2Fvendas');
      expect(fake.sent[0].instance).toBe('loja 1/vendas');
    });

    it('keeps a path prefix of the base URL', async () => {
      const error = await failureOf(
        gateway.send({ ...target, url: `${fake.url}/evolution/` }, NUMBER, {
          kind: 'text',
          text: 'Oi',
        }),
      );
      expect(fake.requests[0].path).toBe('/evolution/message/sendText/acme-sales');
      expect(error.kind).toBe('unknown_instance');
      expect(error.message).toMatch(/URL do gateway/);
    });

    it.each<[string, GatewayErrorKind, number, () => void]>([
      ['a number not on WhatsApp', 'refused_number', 400, () => fake.refuseNumber(NUMBER)],
      ['a closed instance', 'disconnected', 500, () => fake.setState('acme-sales', 'close')],
      [
        'a connecting instance',
        'disconnected',
        500,
        () => fake.setState('acme-sales', 'connecting'),
      ],
      [
        'an instance not loaded in memory',
        'disconnected',
        500,
        () => fake.setState('acme-sales', null),
      ],
      ['a 500 from the gateway', 'transient', 500, () => fake.failNext(1, 500)],
      ['a 502 from a proxy', 'uncertain', 502, () => fake.failNext(1, 502)],
      [
        'a 400 "Connection Closed"',
        'disconnected',
        400,
        () => fake.scriptSends('connection-closed-400'),
      ],
      ['a 429', 'transient', 429, () => fake.failNext(1, 429)],
    ])('classifies %s as %s (HTTP %s), in one attempt', async (_label, kind, status, arrange) => {
      arrange();
      const error = await failureOf(gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      expect(error.kind).toBe(kind);
      expect(error.httpStatus).toBe(status);
      expect(fake.requests).toHaveLength(1);
      expect(fake.sent).toHaveLength(0);
    });

    it.each<[string, () => void]>([
      ['an answer after the send timeout', () => fake.setResponseDelay(1_500)],
      ['a connection closed after the request was read', () => fake.scriptSends('send-then-drop')],
    ])('classifies %s as uncertain: the message went out', async (_label, arrange) => {
      arrange();
      const impatient = gatewayWith(false, { GATEWAY_SEND_TIMEOUT_MS: '400' });
      const error = await failureOf(impatient.send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      expect(error.kind).toBe('uncertain');
      expect(error.retryable).toBe(false);
      expect(fake.sent).toHaveLength(1);
    });

    it('classifies a refused connection as transient: nothing was written', async () => {
      const closed = { ...target, url: `http://127.0.0.1:${await closedPort()}` };
      const error = await failureOf(gateway.send(closed, NUMBER, { kind: 'text', text: 'Oi' }));
      expect(error.kind).toBe('transient');
      expect(error.retryable).toBe(true);
    });

    it('finds a sent message in the gateway store by JID, fromMe and time window', async () => {
      const sent = await gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' });
      const window = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) };
      const found = await gateway.findSentMessages(target, `${NUMBER}@s.whatsapp.net`, window);
      expect(found).toEqual([
        {
          messageId: sent.messageId,
          remoteJid: `${NUMBER}@s.whatsapp.net`,
          sentAt: new Date(Math.floor(fake.sent[0].at.getTime() / 1000) * 1000),
        },
      ]);
      const request = fake.requests[fake.requests.length - 1];
      expect(request.path).toBe('/chat/findMessages/acme-sales');
      expect(request.body).toMatchObject({
        where: {
          key: { remoteJid: `${NUMBER}@s.whatsapp.net`, fromMe: true },
          messageTimestamp: { gte: window.from.toISOString(), lte: window.to.toISOString() },
        },
      });
      const earlier = { from: new Date(Date.now() - 120_000), to: new Date(Date.now() - 60_000) };
      expect(await gateway.findSentMessages(target, `${NUMBER}@s.whatsapp.net`, earlier)).toEqual(
        [],
      );
    });

    it('names the refused number', async () => {
      fake.refuseNumber(NUMBER);
      const error = await failureOf(gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      expect(error.message).toBe(`O número ${NUMBER} não está no WhatsApp`);
      expect(error.retryable).toBe(false);
    });

    it('classifies an empty text refused by the gateway as rejected', async () => {
      const error = await failureOf(gateway.send(target, NUMBER, { kind: 'text', text: '   ' }));
      expect(error.kind).toBe('rejected');
      expect(error.message).toContain('Text is required');
    });

    it('classifies a poll with more selectable answers than options as rejected', async () => {
      const error = await failureOf(
        gateway.send(target, NUMBER, {
          kind: 'poll',
          name: 'P?',
          options: ['a', 'b'],
          selectableCount: 3,
        }),
      );
      expect(error.kind).toBe('rejected');
      expect(error.message).toContain('selectableCount');
    });

    it('classifies a wrong API key as bad_credentials and sends nothing', async () => {
      const error = await failureOf(
        gateway.send({ ...target, apiKey: 'errada' }, NUMBER, { kind: 'text', text: 'Oi' }),
      );
      expect(error.kind).toBe('bad_credentials');
      expect(fake.requests[0].status).toBe(401);
      expect(fake.sent).toHaveLength(0);
    });

    it('classifies an unknown instance as unknown_instance, even with a wrong key', async () => {
      const error = await failureOf(
        gateway.send({ ...target, instance: 'nao-existe', apiKey: 'errada' }, NUMBER, {
          kind: 'text',
          text: 'Oi',
        }),
      );
      expect(error.kind).toBe('unknown_instance');
      expect(error.message).toContain('"nao-existe"');
    });

    it('classifies a refused connection as transient', async () => {
      const port = await closedPort();
      const error = await failureOf(
        gateway.send({ ...target, url: `http://127.0.0.1:${port}` }, NUMBER, {
          kind: 'text',
          text: 'Oi',
        }),
      );
      expect(error.kind).toBe('transient');
      expect(error.message).toContain('Não foi possível conectar ao destino 127.0.0.1');
    });
  });

  describe('reads', () => {
    it.each([['open'], ['connecting'], ['close']] as const)(
      'reports the state %s',
      async (state) => {
        fake.setState('acme-sales', state);
        expect(await gateway.connectionState(target)).toBe(state);
        expect(fake.requests[0].method).toBe('GET');
        expect(fake.requests[0].path).toBe('/instance/connectionState/acme-sales');
        expect(fake.requests[0].headers.apikey).toBe(API_KEY);
      },
    );

    it('reports unknown when the gateway answers without a state', async () => {
      fake.setState('acme-sales', null);
      expect(await gateway.connectionState(target)).toBe('unknown');
    });

    it('maps contacts, skipping rows without a JID', async () => {
      fake.setContacts('acme-sales', [
        {
          id: 'c1',
          remoteJid: '5511987654321@s.whatsapp.net',
          pushName: 'Maria Souza',
          isGroup: false,
          isSaved: true,
          type: 'contact',
        },
        {
          id: 'c2',
          remoteJid: '120363012345678901@g.us',
          pushName: 'Equipe',
          isGroup: true,
          isSaved: true,
          type: 'group',
        },
        {
          id: 'c3',
          remoteJid: '201234567890123@lid',
          pushName: null,
          isGroup: false,
          isSaved: false,
          type: 'group_member',
        },
        { id: 'c4', pushName: 'sem jid' },
      ]);
      expect(await gateway.findContacts(target)).toEqual([
        {
          remoteJid: '5511987654321@s.whatsapp.net',
          pushName: 'Maria Souza',
          isGroup: false,
          isSaved: true,
        },
        { remoteJid: '120363012345678901@g.us', pushName: 'Equipe', isGroup: true, isSaved: true },
        { remoteJid: '201234567890123@lid', pushName: null, isGroup: false, isSaved: false },
      ]);
      expect(fake.requests[0].method).toBe('POST');
      expect(fake.requests[0].path).toBe('/chat/findContacts/acme-sales');
      expect(fake.requests[0].body).toEqual({ where: {} });
    });

    it('maps chats', async () => {
      fake.setChats('acme-sales', [
        {
          id: null,
          remoteJid: '5521998877665@s.whatsapp.net',
          pushName: 'Joao',
          unreadCount: 1,
          isSaved: false,
        },
        { id: 'c1', remoteJid: '5511987654321@s.whatsapp.net', pushName: 'Maria', isSaved: true },
      ]);
      expect(await gateway.findChats(target)).toEqual([
        { remoteJid: '5521998877665@s.whatsapp.net', pushName: 'Joao', isSaved: false },
        { remoteJid: '5511987654321@s.whatsapp.net', pushName: 'Maria', isSaved: true },
      ]);
      expect(fake.requests[0].path).toBe('/chat/findChats/acme-sales');
    });

    it('fetches groups with participants when asked', async () => {
      fake.setGroups('acme-sales', [
        {
          id: '120363012345678901@g.us',
          subject: 'Clientes VIP',
          size: 2,
          participants: [
            { id: '5511987654321@s.whatsapp.net', lid: '201234567890123@lid', admin: 'superadmin' },
            { id: '208765432109876@lid', phoneNumber: '5521998877665@s.whatsapp.net', admin: null },
          ],
        },
      ]);
      expect(await gateway.fetchGroups(target, true)).toEqual([
        {
          id: '120363012345678901@g.us',
          subject: 'Clientes VIP',
          participants: [
            { id: '5511987654321@s.whatsapp.net', phoneNumber: null },
            { id: '208765432109876@lid', phoneNumber: '5521998877665@s.whatsapp.net' },
          ],
        },
      ]);
      expect(fake.requests[0].path).toBe('/group/fetchAllGroups/acme-sales');
      expect(fake.requests[0].query).toEqual({ getParticipants: 'true' });
    });

    it('fetches groups without participants', async () => {
      fake.setGroups('acme-sales', [
        {
          id: '1203@g.us',
          subject: 'Grupo',
          participants: [{ id: '5511987654321@s.whatsapp.net' }],
        },
      ]);
      expect(await gateway.fetchGroups(target, false)).toEqual([
        { id: '1203@g.us', subject: 'Grupo', participants: [] },
      ]);
      expect(fake.requests[0].query).toEqual({ getParticipants: 'false' });
    });

    it('retries transient failures and succeeds on the third attempt', async () => {
      fake.failNext(2, 503, 'read');
      expect(await gateway.connectionState(target)).toBe('open');
      expect(fake.requests.map((r) => r.status)).toEqual([503, 503, 200]);
    });

    it('gives up after three transient failures', async () => {
      fake.failNext(5, 500, 'read');
      const error = await failureOf(gateway.findContacts(target));
      expect(error.kind).toBe('transient');
      expect(fake.requests).toHaveLength(3);
    });

    it('does not retry a failure that is not transient', async () => {
      const error = await failureOf(gateway.findChats({ ...target, apiKey: 'errada' }));
      expect(error.kind).toBe('bad_credentials');
      expect(fake.requests).toHaveLength(1);
    });

    it('classifies an unknown instance on a read', async () => {
      const error = await failureOf(gateway.connectionState({ ...target, instance: 'outra' }));
      expect(error.kind).toBe('unknown_instance');
      expect(fake.requests).toHaveLength(1);
    });

    it('does not let a failed send consume a read failure, nor the reverse', async () => {
      fake.failNext(1, 500, 'send');
      expect(await gateway.connectionState(target)).toBe('open');
      await expect(gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' })).rejects.toThrow(
        GatewayError,
      );
    });
  });

  describe('an instance that cannot send, as Evolution API v2.3.6 answers in each state', () => {
    const text = { kind: 'text', text: 'Oi' } as const;

    it.each<[FakeInstanceState, boolean, number, string]>([
      ['no-socket', false, 500, 'no_socket'],
      ['no-socket', true, 400, 'no_socket'],
      ['never-paired', false, 500, 'closed'],
      ['never-paired', true, 400, 'not_paired'],
      ['close', false, 500, 'closed'],
      ['close', true, 400, 'closed'],
    ])(
      'reads %s (cached number: %s, HTTP %s) as disconnected, %s, in one attempt',
      async (state, cached, status, condition) => {
        fake.setState('acme-sales', state);
        if (cached) {
          fake.cacheNumber('acme-sales', NUMBER);
        }
        const error = await failureOf(gateway.send(target, NUMBER, text));
        expect(error).toMatchObject({ kind: 'disconnected', httpStatus: status });
        expect(error.instanceCondition).toBe(condition);
        expect(fake.requests).toHaveLength(1);
        expect(fake.sent).toHaveLength(0);
      },
    );

    it('learns a number into the cache from a send, as the gateway does', async () => {
      await gateway.send(target, NUMBER, text);
      fake.setState('acme-sales', 'never-paired');
      const error = await failureOf(gateway.send(target, NUMBER, text));
      expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 400 });
      expect(error.instanceCondition).toBe('not_paired');
    });

    it.each<[string, FakeMediaFetchFailure, OutgoingMessage, string]>([
      [
        'an image',
        'EAI_AGAIN',
        { kind: 'media', mediaType: 'image', media: 'https://cdn.example.com/a.png' },
        'getaddrinfo EAI_AGAIN cdn.example.com',
      ],
      [
        'an image',
        'ECONNREFUSED',
        { kind: 'media', mediaType: 'image', media: 'http://127.0.0.1:9/a.png' },
        'connect ECONNREFUSED 127.0.0.1:9',
      ],
      // Not recorded: a video or document URL is fetched like an image's, before anything else.
      [
        'a video',
        'EAI_AGAIN',
        { kind: 'media', mediaType: 'video', media: 'https://cdn.example.com/a.mp4' },
        'getaddrinfo EAI_AGAIN cdn.example.com',
      ],
      [
        'a document',
        'ECONNREFUSED',
        { kind: 'media', mediaType: 'document', media: 'http://127.0.0.1:9/a.pdf' },
        'connect ECONNREFUSED 127.0.0.1:9',
      ],
      // Not recorded: the audio is fetched outside the service's try, so its message is plain.
      [
        'an audio',
        'EAI_AGAIN',
        { kind: 'audio', audio: 'https://cdn.example.com/a.ogg' },
        'getaddrinfo EAI_AGAIN cdn.example.com',
      ],
    ])(
      'reads %s the gateway cannot fetch (%s) as media_unreachable',
      async (_what, failure, message, cause) => {
        const url = message.kind === 'audio' ? message.audio : (message as { media: string }).media;
        fake.unreachableMedia(new URL(url).host, failure);
        const error = await failureOf(gateway.send(target, NUMBER, message));
        expect(error).toMatchObject({ kind: 'media_unreachable', httpStatus: 500 });
        // What the gateway's network refused stays the gateway operator's to know.
        expect(error.message).not.toContain(cause);
        expect(fake.sent).toHaveLength(0);
      },
    );
  });

  describe('webhook', () => {
    const settings = {
      enabled: true,
      url: 'https://campanhas.example.com/api/gateway-events/7',
      headers: { 'x-campaign-service-secret': 'segredo' },
      events: ['MESSAGES_UPDATE', 'CONNECTION_UPDATE'],
    };

    it('reads null before any webhook was set', async () => {
      expect(await gateway.findWebhook(target)).toBeNull();
    });

    it('sets the webhook with its events and reads the stored row back', async () => {
      await gateway.setWebhook(target, settings);
      expect(fake.requests[0].body).toEqual({
        webhook: { ...settings, byEvents: false, base64: false },
      });
      expect(await gateway.findWebhook(target)).toEqual({ enabled: true, url: settings.url });
    });

    it('turns it off: the gateway stores no events', async () => {
      await gateway.setWebhook(target, settings);
      await gateway.setWebhook(target, { ...settings, enabled: false, headers: {}, events: [] });
      expect(fake.webhookOf('acme-sales')).toMatchObject({ enabled: false, events: [] });
      expect(await gateway.findWebhook(target)).toEqual({ enabled: false, url: settings.url });
    });
  });

  describe('metrics', () => {
    it('times every exchange, by operation and by what its answer proves', async () => {
      const GATEWAY = 'campaign_service_gateway_request_duration_seconds_count';
      const before = samplesOf(await metrics.scrape());
      await gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' });
      await gateway.send(target, NUMBER, {
        kind: 'poll',
        name: 'P?',
        options: ['a', 'b'],
        selectableCount: 1,
      });
      fake.refuseNumber('5511900000001');
      await failureOf(gateway.send(target, '5511900000001', { kind: 'text', text: 'Oi' }));
      await failureOf(gateway.send(target, NUMBER, { kind: 'text', text: '   ' }));
      await failureOf(
        gateway.send({ ...target, apiKey: 'errada' }, NUMBER, { kind: 'text', text: 'Oi' }),
      );
      fake.scriptSends('connection-closed-400', 'send-then-proxy-502');
      await failureOf(gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      await failureOf(gateway.send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      fake.failNext(2, 503, 'read');
      expect(await gateway.connectionState(target)).toBe('open');
      await failureOf(gatewayWith(true).send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      const after = samplesOf(await metrics.scrape());
      const delta = (operation: string, outcome: string): number =>
        total(after, GATEWAY, { operation, outcome }) -
        total(before, GATEWAY, { operation, outcome });
      expect({
        sent: delta('send_text', 'sent'),
        poll: delta('send_poll', 'sent'),
        refused: delta('send_text', 'refused'),
        instanceRefused: delta('send_text', 'instance_refused'),
        disconnected: delta('send_text', 'disconnected'),
        uncertain: delta('send_text', 'uncertain'),
        targetRefused: delta('send_text', 'target_refused'),
        readRetried: delta('connection_state', 'not_sent'),
        read: delta('connection_state', 'ok'),
      }).toEqual({
        sent: 1,
        poll: 1,
        refused: 2,
        instanceRefused: 1,
        disconnected: 1,
        uncertain: 1,
        targetRefused: 1,
        readRetried: 2,
        read: 1,
      });
    });
  });

  describe('target check', () => {
    it('refuses the fake on 127.0.0.1 with OUTBOUND_DENY_PRIVATE=true and never connects', async () => {
      const denying = gatewayWith(true);
      const send = await failureOf(denying.send(target, NUMBER, { kind: 'text', text: 'Oi' }));
      const read = await failureOf(denying.connectionState(target));
      expect(send.kind).toBe('target_refused');
      expect(read.kind).toBe('target_refused');
      expect(send.message).toContain('127.0.0.1');
      expect(fake.requests).toHaveLength(0);
    });

    it('refuses a cloud metadata address even with private ranges open', async () => {
      const error = await failureOf(
        gateway.send({ ...target, url: 'http://169.254.169.254' }, NUMBER, {
          kind: 'text',
          text: 'Oi',
        }),
      );
      expect(error.kind).toBe('target_refused');
    });

    it('refuses a non-http URL', async () => {
      const error = await failureOf(
        gateway.connectionState({ ...target, url: 'ftp://127.0.0.1/' }),
      );
      expect(error.kind).toBe('target_refused');
    });
  });
});
