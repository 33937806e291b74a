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
  CloudApiTarget,
  GatewayError,
  GatewayErrorKind,
  MessagingGateway,
} from '../../../src/modules/gateway/domain/messaging-gateway';
import { GraphCloudApiAccount } from '../../../src/modules/gateway/infrastructure/cloud-api.account';
import { GraphApiClient } from '../../../src/modules/gateway/infrastructure/cloud-api.client';
import { CloudApiGateway } from '../../../src/modules/gateway/infrastructure/cloud-api.gateway';
import { EvolutionApiGateway } from '../../../src/modules/gateway/infrastructure/evolution-api.gateway';
import { MessagingGatewayRouter } from '../../../src/modules/gateway/infrastructure/messaging-gateway.router';
import { FakeEvolutionApi } from '../../support/fake-evolution-api';
import { FakeGraphApi, graphError, MetaTemplate } from '../../support/fake-graph-api';

const TOKEN = 'EAAG-token-do-adaptador-77C1';
const NUMBER_ID = '106540352240001';
const WABA_ID = '102290129340001';
const TO = '5511987654321';

const metrics = new Metrics();

/** The adapters and the router exactly as the application wires them, over real HTTP. */
function wired(env: Record<string, string> = {}) {
  const config = loadAppConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'cloud-gateway-e2e-')),
    ADMIN_PASSWORD: 'test-admin-password-0123',
    OUTBOUND_DENY_PRIVATE: 'false',
    ...env,
  });
  const http = new OutboundHttpClient(new OutboundTargetGuard(config));
  const client = new GraphApiClient(http, metrics);
  const cloud = new CloudApiGateway(client, new GraphCloudApiAccount(client), config);
  const evolution = new EvolutionApiGateway(http, config, metrics);
  return { cloud, router: new MessagingGatewayRouter(evolution, cloud) as MessagingGateway };
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
  throw new Error('expected the call to fail');
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const TEMPLATE: MetaTemplate = {
  name: 'boas_vindas',
  language: 'pt_BR',
  status: 'APPROVED',
  category: 'MARKETING',
  components: [
    { type: 'HEADER', format: 'IMAGE' },
    { type: 'BODY', text: 'Olá {{1}}, novidades em {{2}}' },
  ],
};

describe('CloudApiGateway against the fake Graph API', () => {
  const graph = new FakeGraphApi();
  const evolution = new FakeEvolutionApi();
  const { cloud, router } = wired();
  let target: CloudApiTarget;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    await graph.start();
    await evolution.start();
  });

  afterAll(async () => {
    await graph.stop();
    await evolution.stop();
  });

  beforeEach(() => {
    graph.reset();
    graph.addNumber({
      phoneNumberId: NUMBER_ID,
      businessAccountId: WABA_ID,
      accessToken: TOKEN,
    });
    graph.addTemplate(WABA_ID, TEMPLATE);
    target = {
      provider: 'CLOUD_API',
      url: graph.url,
      apiVersion: 'v27.0',
      phoneNumberId: NUMBER_ID,
      businessAccountId: WABA_ID,
      accessToken: TOKEN,
    };
  });

  describe('send', () => {
    it("posts a text to the number's messages route and answers the wamid", async () => {
      const sent = await cloud.send(
        target,
        TO,
        { kind: 'text', text: 'Oi' },
        { callbackData: '9' },
      );
      expect(graph.sent).toHaveLength(1);
      expect(sent).toEqual({ messageId: graph.sent[0].wamid, remoteJid: TO });
      const request = graph.requests.at(-1);
      expect(request).toMatchObject({
        method: 'POST',
        path: `/v27.0/${NUMBER_ID}/messages`,
        token: TOKEN,
      });
      expect(request?.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: TO,
        type: 'text',
        text: { body: 'Oi', preview_url: false },
        biz_opaque_callback_data: '9',
      });
      expect(graph.sent[0].callbackData).toBe('9');
    });

    it.each([
      ['image', { kind: 'media' as const, mediaType: 'image' as const, media: 'https://m/a.jpg' }],
      ['video', { kind: 'media' as const, mediaType: 'video' as const, media: 'https://m/a.mp4' }],
      [
        'document',
        {
          kind: 'media' as const,
          mediaType: 'document' as const,
          media: 'https://m/a.pdf',
          fileName: 'a.pdf',
        },
      ],
      ['audio', { kind: 'audio' as const, audio: 'https://m/a.ogg' }],
    ])('sends %s by link, as Meta takes it', async (type, message) => {
      await cloud.send(target, TO, message);
      expect(graph.sent).toHaveLength(1);
      expect(graph.sent[0].type).toBe(type);
      expect(graph.sent[0].body[type]).toMatchObject({ link: expect.stringMatching(/^https:/) });
    });

    it('sends a template whose parameters and header media Meta accepts', async () => {
      await cloud.send(
        target,
        TO,
        {
          kind: 'template',
          name: 'boas_vindas',
          language: 'pt_BR',
          bodyParameters: ['Ana', 'Recife'],
          headerMedia: { mediaType: 'image', link: 'https://m/p.jpg' },
        },
        { callbackData: '123' },
      );
      expect(graph.sent).toHaveLength(1);
      expect(graph.sent[0]).toMatchObject({ type: 'template', callbackData: '123' });
    });

    it.each<[string, () => void, GatewayErrorKind]>([
      ['130429 throughput', () => graph.failNextSendWithCode(130429), 'throttled'],
      ['131056 pair rate', () => graph.failNextSendWithCode(131056), 'throttled'],
      ['131026 undeliverable', () => graph.failNextSendWithCode(131026), 'undeliverable'],
      ['131047 re-engagement', () => graph.failNextSendWithCode(131047), 'reengagement_required'],
      ['131049 marketing limit', () => graph.failNextSendWithCode(131049), 'marketing_limit'],
      ['131042 payment', () => graph.failNextSendWithCode(131042), 'account_blocked'],
      ['131031 locked account', () => graph.failNextSendWithCode(131031), 'account_blocked'],
      ['131052 media download', () => graph.failNextSendWithCode(131052), 'media_unreachable'],
      ['131000 unknown', () => graph.failNextSendWithCode(131000, 500), 'uncertain'],
      [
        'a 502 of a proxy',
        () => graph.failNextSend({ status: 502, body: 'Bad Gateway' }),
        'uncertain',
      ],
      [
        'a 500 of Meta without a code it knows',
        () => graph.failNextSend(graphError(500, 77777, 'x')),
        'uncertain',
      ],
    ])('classifies %s by what it proves', async (_label, arrange, kind) => {
      arrange();
      const error = await failureOf(cloud.send(target, TO, { kind: 'text', text: 'Oi' }));
      expect(error.kind).toBe(kind);
      expect(error.message).toMatch(/\S/);
      expect(graph.requests).toHaveLength(1);
      expect(graph.sent).toHaveLength(0);
    });

    it.each<[string, Parameters<CloudApiGateway['send']>[2], GatewayErrorKind, RegExp]>([
      [
        'a paused template',
        { kind: 'template', name: 'pausado', language: 'pt_BR', bodyParameters: [] },
        'account_blocked',
        /código 132015/,
      ],
      [
        'a template that does not exist',
        { kind: 'template', name: 'nao_existe', language: 'pt_BR', bodyParameters: [] },
        'account_blocked',
        /código 132001/,
      ],
      [
        'the wrong number of parameters',
        {
          kind: 'template',
          name: 'boas_vindas',
          language: 'pt_BR',
          bodyParameters: ['Ana'],
          headerMedia: { mediaType: 'image', link: 'https://m/p.jpg' },
        },
        'rejected',
        /código 132000/,
      ],
      [
        'a header of the wrong kind',
        {
          kind: 'template',
          name: 'boas_vindas',
          language: 'pt_BR',
          bodyParameters: ['Ana', 'Recife'],
          headerMedia: { mediaType: 'video', link: 'https://m/p.mp4' },
        },
        'rejected',
        /código 132012/,
      ],
    ])("classifies Meta's own refusal of %s", async (_label, message, kind, text) => {
      graph.addTemplate(WABA_ID, { ...TEMPLATE, name: 'pausado', status: 'PAUSED' });
      const error = await failureOf(cloud.send(target, TO, message));
      expect(error.kind).toBe(kind);
      expect(error.message).toMatch(text);
      expect(graph.sent).toHaveLength(0);
    });

    it('classifies a refused token (190) as account_blocked, saying so', async () => {
      const error = await failureOf(
        cloud.send({ ...target, accessToken: 'vencido' }, TO, { kind: 'text', text: 'Oi' }),
      );
      expect(error.kind).toBe('account_blocked');
      expect(error.httpStatus).toBe(401);
      expect(error.message).toContain('código 190');
      expect(error.message).not.toContain('vencido');
    });

    it('classifies an unknown phone number id (100/33) as unknown_instance', async () => {
      const error = await failureOf(
        cloud.send({ ...target, phoneNumberId: '42' }, TO, { kind: 'text', text: 'Oi' }),
      );
      expect(error.kind).toBe('unknown_instance');
    });

    it('is uncertain, never sent twice, when Meta holds the answer past the timeout', async () => {
      const { cloud: impatient } = wired({ GATEWAY_SEND_TIMEOUT_MS: '400' });
      graph.hangNextSend();
      const error = await failureOf(impatient.send(target, TO, { kind: 'text', text: 'Oi' }));
      expect(error.kind).toBe('uncertain');
      expect(error.retryable).toBe(false);
      expect(graph.requests).toHaveLength(1);
      graph.releaseHung();
    });

    it('sends after a delay shorter than the timeout', async () => {
      graph.delayNextSend(100);
      const sent = await cloud.send(target, TO, { kind: 'text', text: 'Oi' });
      expect(sent.messageId).toBe(graph.sent[0].wamid);
    });

    it('is transient when the connection is refused: nothing was written', async () => {
      const closed = { ...target, url: `http://127.0.0.1:${await closedPort()}` };
      const error = await failureOf(cloud.send(closed, TO, { kind: 'text', text: 'Oi' }));
      expect(error.kind).toBe('transient');
      expect(error.retryable).toBe(true);
    });

    it('is target_refused for a link-local Graph API address, and calls nothing', async () => {
      const error = await failureOf(
        cloud.send({ ...target, url: 'http://169.254.169.254' }, TO, { kind: 'text', text: 'Oi' }),
      );
      expect(error.kind).toBe('target_refused');
    });

    it('refuses a poll without a call', async () => {
      const error = await failureOf(
        cloud.send(target, TO, {
          kind: 'poll',
          name: 'P',
          options: ['a', 'b'],
          selectableCount: 1,
        }),
      );
      expect(error.kind).toBe('rejected');
      expect(graph.requests).toHaveLength(0);
    });
  });

  describe('the rest of the port', () => {
    it('answers no stored messages: reconciliation is by status webhooks', async () => {
      const window = { from: new Date(0), to: new Date() };
      expect(await cloud.findSentMessages()).toEqual([]);
      expect(await router.findSentMessages(target, TO, window)).toEqual([]);
      expect(graph.requests).toHaveLength(0);
    });

    it("is open when Meta shows the number, and fails as Meta's answer proves otherwise", async () => {
      expect(await router.connectionState(target)).toBe('open');
      const error = await failureOf(router.connectionState({ ...target, accessToken: 'x' }));
      expect(error.kind).toBe('account_blocked');
    });

    it.each<[string, (gateway: MessagingGateway) => Promise<unknown>]>([
      ['findWebhook', (g) => g.findWebhook(target)],
      [
        'setWebhook',
        (g) => g.setWebhook(target, { enabled: true, url: 'x', headers: {}, events: [] }),
      ],
      ['instanceToken', (g) => g.instanceToken(target)],
      ['findContacts', (g) => g.findContacts(target)],
      ['findChats', (g) => g.findChats(target)],
      ['fetchGroups', (g) => g.fetchGroups(target, true)],
    ])('refuses %s with a Portuguese reason, calling nobody', async (_label, call) => {
      const error = await failureOf(call(router));
      expect(error.kind).toBe('rejected');
      expect(error.message).toContain('só no Evolution API');
      expect(graph.requests).toHaveLength(0);
    });
  });

  describe('the router', () => {
    it('sends through the adapter of each target: Evolution API and Cloud API alike', async () => {
      evolution.reset();
      evolution.addInstance('acme', { apiKey: 'chave', state: 'open' });
      await router.send({ url: evolution.url, apiKey: 'chave', instance: 'acme' }, TO, {
        kind: 'text',
        text: 'pela Evolution',
      });
      await router.send(target, TO, { kind: 'text', text: 'pela Meta' });
      expect(evolution.sent).toHaveLength(1);
      expect(graph.sent).toHaveLength(1);
      expect(graph.sent[0].body.text).toEqual({ body: 'pela Meta', preview_url: false });
      expect(
        await router.connectionState({ url: evolution.url, apiKey: 'chave', instance: 'acme' }),
      ).toBe('open');
    });
  });
});
