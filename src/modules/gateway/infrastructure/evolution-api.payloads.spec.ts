import { GatewayError } from '../domain/messaging-gateway';
import {
  buildSendRequest,
  stripDataUri,
  toChats,
  toConnectionState,
  toContacts,
  toGroups,
  toInstanceWebhook,
  toSentMessage,
} from './evolution-api.payloads';

describe('stripDataUri', () => {
  it.each([
    ['data:image/png;base64,iVBORw0KGgo=', 'iVBORw0KGgo=', 'image/png'],
    ['DATA:application/pdf;BASE64,JVBERi0=', 'JVBERi0=', 'application/pdf'],
    ['data:audio/ogg;codecs=opus;base64,T2dnUw==', 'T2dnUw==', 'audio/ogg'],
    ['data:;base64,AAAA', 'AAAA', undefined],
  ])('strips %s', (input, media, mimeType) => {
    expect(stripDataUri(input)).toEqual({ media, mimeType });
  });

  it.each([['https://files.example.com/a.png'], ['iVBORw0KGgo='], ['data:text/plain,hello']])(
    'leaves %s alone',
    (input) => {
      expect(stripDataUri(input)).toEqual({ media: input });
    },
  );
});

describe('buildSendRequest', () => {
  it('builds a text', () => {
    expect(buildSendRequest('5511987654321', { kind: 'text', text: 'Oi' })).toEqual({
      endpoint: 'sendText',
      body: { number: '5511987654321', text: 'Oi' },
    });
  });

  it('adds delay only when positive, rounded to whole milliseconds', () => {
    expect(buildSendRequest('1', { kind: 'text', text: 'a' }, { delayMs: 1500.4 }).body.delay).toBe(
      1500,
    );
    expect(
      buildSendRequest('1', { kind: 'text', text: 'a' }, { delayMs: 0 }).body,
    ).not.toHaveProperty('delay');
  });

  it('omits empty optional media fields and prefers the given mimetype over the data: URI one', () => {
    expect(
      buildSendRequest('1', {
        kind: 'media',
        mediaType: 'video',
        media: 'data:video/webm;base64,AAAA',
        mimeType: 'video/mp4',
        caption: '',
      }),
    ).toEqual({
      endpoint: 'sendMedia',
      body: { number: '1', mediatype: 'video', media: 'AAAA', mimetype: 'video/mp4' },
    });
    expect(
      buildSendRequest('1', { kind: 'media', mediaType: 'image', media: 'https://x/y.png' }).body,
    ).toEqual({
      number: '1',
      mediatype: 'image',
      media: 'https://x/y.png',
    });
  });

  it('builds audio and poll', () => {
    expect(buildSendRequest('1', { kind: 'audio', audio: 'https://x/a.mp3' })).toEqual({
      endpoint: 'sendWhatsAppAudio',
      body: { number: '1', audio: 'https://x/a.mp3' },
    });
    expect(
      buildSendRequest('1', { kind: 'poll', name: 'Q?', options: ['a', 'b'], selectableCount: 0 }),
    ).toEqual({
      endpoint: 'sendPoll',
      body: { number: '1', name: 'Q?', selectableCount: 0, values: ['a', 'b'] },
    });
  });
});

describe('response mapping', () => {
  it('reads key.id and key.remoteJid, tolerating a body without them', () => {
    expect(toSentMessage({ key: { id: 'ABC', remoteJid: '1@s.whatsapp.net' } })).toEqual({
      messageId: 'ABC',
      remoteJid: '1@s.whatsapp.net',
    });
    expect(toSentMessage(undefined)).toEqual({ messageId: null, remoteJid: null });
  });

  it.each([
    [{ instance: { instanceName: 'a', state: 'open' } }, 'open'],
    [{ instance: { instanceName: 'a', state: 'connecting' } }, 'connecting'],
    [{ instance: { instanceName: 'a', state: 'close' } }, 'close'],
    [{ instance: { instanceName: 'a' } }, 'unknown'],
    [{ instance: { instanceName: 'a', state: 'refused' } }, 'unknown'],
    [undefined, 'unknown'],
  ])('maps connection state %j to %s', (body, state) => {
    expect(toConnectionState(body)).toBe(state);
  });

  it('derives isGroup from the JID when the flag is missing', () => {
    expect(toContacts([{ remoteJid: '1203@g.us' }])).toEqual([
      { remoteJid: '1203@g.us', pushName: null, isGroup: true, isSaved: false },
    ]);
  });

  it('skips chats without a JID', () => {
    expect(
      toChats([{ remoteJid: '' }, { remoteJid: '1@s.whatsapp.net', pushName: 'A', isSaved: true }]),
    ).toEqual([{ remoteJid: '1@s.whatsapp.net', pushName: 'A', isSaved: true }]);
  });

  it('maps groups, with empty participants when they were not asked for', () => {
    expect(toGroups([{ id: '1@g.us', subject: 'G' }, { subject: 'no id' }])).toEqual([
      { id: '1@g.us', subject: 'G', participants: [] },
    ]);
  });

  it.each([[{}], ['text'], [null]])('refuses a list answer that is not an array (%j)', (body) => {
    expect(() => toContacts(body)).toThrow(GatewayError);
    expect(() => toChats(body)).toThrow(GatewayError);
    expect(() => toGroups(body)).toThrow(GatewayError);
  });
});

describe('toInstanceWebhook', () => {
  /** `webhook/find` as Evolution API v2.3.6 answered it, after a set and after a disable. */
  const row = {
    id: 'cmwxe9ec40001cp7d5bkplayd',
    url: 'http://127.0.0.1:4000/hook',
    headers: { 'x-events-secret': 's3cr3t' },
    enabled: true,
    events: ['MESSAGES_UPDATE', 'MESSAGES_UPSERT', 'CONNECTION_UPDATE'],
    webhookByEvents: false,
    webhookBase64: false,
    createdAt: '2026-11-26T10:13:01.780Z',
    updatedAt: '2026-11-26T10:13:01.780Z',
    instanceId: '1107cc5c-1327-4174-8206-15e68518d049',
  };

  it('reads where the stored row sends the events', () => {
    expect(toInstanceWebhook(row)).toEqual({ enabled: true, url: 'http://127.0.0.1:4000/hook' });
    expect(toInstanceWebhook({ ...row, enabled: false, headers: {}, events: [] })).toEqual({
      enabled: false,
      url: 'http://127.0.0.1:4000/hook',
    });
  });

  it('reads null (no webhook ever set) as none', () => {
    expect(toInstanceWebhook(null)).toBeNull();
  });

  it.each([
    ['an empty object', {}],
    ['a body that was not JSON', undefined],
    ['the request field names', { webhook: { enabled: true, url: 'https://crm.example.com' } }],
    ['a list', [row]],
  ])('refuses %s rather than read it as no webhook', (_label, body) => {
    expect(() => toInstanceWebhook(body)).toThrow(
      expect.objectContaining({ kind: 'rejected' }) as GatewayError,
    );
  });
});
