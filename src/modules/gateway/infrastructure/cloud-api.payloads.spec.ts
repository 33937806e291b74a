import { GatewayError } from '../domain/messaging-gateway';
import { buildCloudSendRequest, toCloudSentMessage } from './cloud-api.payloads';

const TO = '5511987654321';

describe('buildCloudSendRequest', () => {
  it('sends text without a link preview, with the callback data', () => {
    expect(
      buildCloudSendRequest(TO, { kind: 'text', text: 'Olá' }, { callbackData: 'cc-42' }),
    ).toEqual({
      operation: 'send_text',
      body: {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: TO,
        type: 'text',
        text: { body: 'Olá', preview_url: false },
        biz_opaque_callback_data: 'cc-42',
      },
    });
  });

  it('sends media by link, a document with its file name', () => {
    const { body } = buildCloudSendRequest(TO, {
      kind: 'media',
      mediaType: 'document',
      media: 'https://cdn.example.com/a.pdf',
      fileName: 'a.pdf',
      caption: 'Seu boleto',
    });
    expect(body).toMatchObject({
      type: 'document',
      document: { link: 'https://cdn.example.com/a.pdf', filename: 'a.pdf', caption: 'Seu boleto' },
    });
    expect(body).not.toHaveProperty('biz_opaque_callback_data');
  });

  it('sends audio by link', () => {
    expect(
      buildCloudSendRequest(TO, { kind: 'audio', audio: 'https://cdn.example.com/a.ogg' }),
    ).toMatchObject({
      operation: 'send_audio',
      body: { type: 'audio', audio: { link: 'https://cdn.example.com/a.ogg' } },
    });
  });

  it('sends a template with its header media and body parameters', () => {
    const { operation, body } = buildCloudSendRequest(TO, {
      kind: 'template',
      name: 'boas_vindas',
      language: 'pt_BR',
      bodyParameters: ['Ana', 'Recife'],
      headerMedia: { mediaType: 'image', link: 'https://cdn.example.com/p.jpg' },
    });
    expect(operation).toBe('send_template');
    expect(body.template).toEqual({
      name: 'boas_vindas',
      language: { code: 'pt_BR' },
      components: [
        {
          type: 'header',
          parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/p.jpg' } }],
        },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: 'Recife' },
          ],
        },
      ],
    });
  });

  it('sends a template without parameters without components', () => {
    const { body } = buildCloudSendRequest(TO, {
      kind: 'template',
      name: 'hello_world',
      language: 'en_US',
      bodyParameters: [],
    });
    expect(body.template).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
  });

  it.each([
    ['a poll', { kind: 'poll' as const, name: 'P', options: ['a', 'b'], selectableCount: 1 }],
    [
      'base64 media',
      { kind: 'media' as const, mediaType: 'image' as const, media: 'iVBORw0KGgo=' },
    ],
  ])('rejects %s before any call', (_label, message) => {
    expect(() => buildCloudSendRequest(TO, message)).toThrow(GatewayError);
  });
});

describe('toCloudSentMessage', () => {
  it("takes the wamid and the recipient's WhatsApp id", () => {
    expect(
      toCloudSentMessage({
        messaging_product: 'whatsapp',
        contacts: [{ input: TO, wa_id: TO }],
        messages: [{ id: 'wamid.ABC' }],
      }),
    ).toEqual({ messageId: 'wamid.ABC', remoteJid: TO });
  });

  it('is uncertain about a 2xx without a wamid', () => {
    expect(() => toCloudSentMessage({ messages: [] })).toThrow(
      expect.objectContaining({ kind: 'uncertain' }),
    );
  });
});
