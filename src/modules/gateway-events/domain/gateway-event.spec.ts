import { connectionOf, inboundOf, isOptOut, parseEnvelope, receiptOf } from './gateway-event';
import { ValidationFailedError } from '../../../common/errors/domain-error';

const NOW = new Date('2026-11-24T12:00:00.000Z');

describe('gateway events', () => {
  it('reads the envelope Evolution API sends, event names in either case', () => {
    const parsed = parseEnvelope(
      {
        event: 'messages.update',
        instance: 'loja',
        apikey: null,
        data: { keyId: 'K1', status: 'READ' },
        date_time: '2026-11-24T11:59:59.000Z',
        sender: '5511900000000@s.whatsapp.net',
      },
      NOW,
    );
    expect(parsed).toEqual({
      event: 'messages.update',
      instance: 'loja',
      apikey: null,
      data: { keyId: 'K1', status: 'READ' },
      at: new Date('2026-11-24T11:59:59.000Z'),
    });
    expect(
      parseEnvelope({ event: 'MESSAGES_UPSERT', instance: 'loja', data: {} }, NOW),
    ).toMatchObject({
      event: 'messages.upsert',
      at: NOW,
    });
    expect(parseEnvelope({ event: 'qrcode.updated', instance: 'loja' }, NOW)).toBeNull();
  });

  it('refuses, naming the field, every field it reads that cannot be applied', () => {
    const event = (overrides: Record<string, unknown>, data: Record<string, unknown> = {}) => ({
      event: 'messages.update',
      instance: 'loja',
      data: { keyId: 'K1', status: 'READ', fromMe: true, ...data },
      ...overrides,
    });
    const refusals: Array<[unknown, string]> = [
      [[], 'event'],
      [event({ event: 1 }), 'event'],
      [event({ instance: undefined }), 'instance'],
      [event({ instance: 'x'.repeat(101) }), 'instance'],
      [event({ apikey: 7 }), 'apikey'],
      [event({ date_time: '-010000-01-01T00:00:00Z' }), 'date_time'],
      [event({ date_time: '2008-12-31T23:59:59.000Z' }), 'date_time'],
      [event({ date_time: '2026-11-25T03:00:01.000Z' }), 'date_time'],
      [event({ date_time: '2026-02-30T10:00:00Z' }), 'date_time'],
      [event({ date_time: 1764000000 }), 'date_time'],
      [event({ data: 'x' }), 'data'],
      [event({}, { keyId: 42 }), 'data.keyId'],
      [event({}, { keyId: 'K'.repeat(129) }), 'data.keyId'],
      [event({}, { status: ['READ'] }), 'data.status'],
      [event({}, { status: 'constructor' }), 'data.status'],
      [event({}, { status: '__proto__' }), 'data.status'],
      [event({}, { status: 'READ '.repeat(8) }), 'data.status'],
      [event({}, { remoteJid: {} }), 'data.remoteJid'],
      [event({}, { fromMe: 'true' }), 'data.fromMe'],
      [event({ event: 'messages.upsert', data: { key: 'x' } }), 'data.key'],
      [event({ event: 'messages.upsert', data: { key: { id: 1 } } }), 'data.key.id'],
      [event({ event: 'messages.upsert', data: { key: { fromMe: 0 } } }), 'data.key.fromMe'],
      [
        event({
          event: 'messages.upsert',
          data: { message: { conversation: 'x'.repeat(65_537) } },
        }),
        'data.message.conversation',
      ],
      [
        event({
          event: 'messages.upsert',
          data: { message: { extendedTextMessage: { text: 1 } } },
        }),
        'data.message.extendedTextMessage.text',
      ],
      [event({ event: 'connection.update', data: { state: 'x'.repeat(21) } }), 'data.state'],
      [event({ event: 'connection.update', data: { statusReason: 4.5 } }), 'data.statusReason'],
      [event({ event: 'connection.update', data: { statusReason: '428' } }), 'data.statusReason'],
    ];
    for (const [body, field] of refusals) {
      expect(() => parseEnvelope(body, NOW)).toThrow(
        new RegExp(`[{ ]${field.replace(/\./g, '\\.')}=`),
      );
    }
  });

  it('keeps only what the processor reads of the data, which reads the same from it', () => {
    const kept = (event: string, data: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(parseEnvelope({ event, instance: 'l', data }, NOW)?.data));
    const bulk = 'x'.repeat(500_000);
    const update = { keyId: 'K', remoteJid: 'j', fromMe: true, status: 'READ', participant: bulk };
    expect(kept('messages.update', update)).toEqual({ keyId: 'K', fromMe: true, status: 'READ' });
    const reply = {
      key: { id: 'IN1', remoteJid: '5511988887777@s.whatsapp.net', fromMe: false, bulk },
      pushName: bulk,
      message: { conversation: 'SAIR', imageMessage: { jpegThumbnail: bulk } },
      messageTimestamp: 1764000000,
    };
    expect(kept('messages.upsert', reply)).toEqual({
      key: { remoteJid: '5511988887777@s.whatsapp.net', fromMe: false },
      message: { conversation: 'SAIR', extendedTextMessage: {} },
    });
    expect(inboundOf(kept('messages.upsert', reply))).toEqual(inboundOf(reply));
    const connection = { instance: 'l', state: 'open', statusReason: 200, profilePictureUrl: bulk };
    expect(kept('connection.update', connection)).toEqual({ state: 'open', statusReason: 200 });
  });

  it('accepts every status word the gateway sends, those it does not apply included', () => {
    for (const status of ['PENDING', 'DELETED', 'SERVER_ACK', 'DELIVERED', 'READ']) {
      const data = { keyId: 'K', fromMe: true, status };
      expect(parseEnvelope({ event: 'messages.update', instance: 'l', data }, NOW)?.data).toEqual(
        data,
      );
    }
  });

  it('believes the gateway’s date from 2009 on, reading one ahead of the receipt as the receipt', () => {
    const at = (dateTime: string) =>
      parseEnvelope(
        { event: 'connection.update', instance: 'l', data: {}, date_time: dateTime },
        NOW,
      )?.at;
    expect(at('2009-01-01T00:00:00Z')).toEqual(new Date('2009-01-01T00:00:00Z'));
    expect(at('2026-11-24T09:00:00-03:00')).toEqual(new Date('2026-11-24T12:00:00Z'));
    // Evolution writes a UTC+14 server's local time with a Z.
    expect(at('2026-11-25T02:00:00.000Z')).toEqual(NOW);
  });

  it('ranks receipts and ignores what is not ours', () => {
    expect(receiptOf({ keyId: 'K', status: 'DELIVERY_ACK', fromMe: true })).toEqual({
      keyId: 'K',
      rank: 3,
      code: null,
    });
    expect(receiptOf({ keyId: 'K', status: 'PLAYED' })).toEqual({
      keyId: 'K',
      rank: 5,
      code: null,
    });
    expect(receiptOf({ keyId: 'K', status: 'ERROR' })).toEqual({ keyId: 'K', rank: 0, code: null });
    expect(receiptOf({ keyId: 'K', status: 'PENDING' })).toBeNull();
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(receiptOf({ keyId: 'K', status: inherited })).toBeNull();
    }
    expect(receiptOf({ keyId: 'K', status: 'READ', fromMe: false })).toBeNull();
    expect(receiptOf({ status: 'READ' })).toBeNull();
  });

  it('keeps the code a nack carries, and refuses one that is no code', () => {
    const nack = (parameters: unknown) =>
      parseEnvelope(
        {
          event: 'messages.update',
          instance: 'l',
          data: { keyId: 'K', fromMe: true, status: 'ERROR', messageStubParameters: parameters },
        },
        NOW,
      );
    expect(receiptOf(nack(['463'])?.data ?? {})).toEqual({ keyId: 'K', rank: 0, code: '463' });
    expect(receiptOf(nack([463])?.data ?? {})).toEqual({ keyId: 'K', rank: 0, code: '463' });
    expect(receiptOf(nack([])?.data ?? {})).toEqual({ keyId: 'K', rank: 0, code: null });
    for (const wrong of ['463', [{ code: 463 }], ['4 6 3'], Array(9).fill('463')]) {
      expect(() => nack(wrong)).toThrow(ValidationFailedError);
    }
    // Only an ERROR carries a code: a stray parameter on a receipt means nothing.
    const read = { keyId: 'K', status: 'READ', code: '463' };
    expect(receiptOf(read)).toEqual({ keyId: 'K', rank: 4, code: null });
  });

  it('finds who wrote and what, in conversation, extended text or a caption', () => {
    expect(
      inboundOf({
        key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: 'X' },
        message: { conversation: ' Sair ' },
      }),
    ).toEqual({ phone: '5511987654321', text: ' Sair ' });
    expect(
      inboundOf({
        key: { remoteJid: '123@lid', remoteJidAlt: '5511987654321@s.whatsapp.net', fromMe: false },
        message: { extendedTextMessage: { text: 'parar' } },
      }),
    ).toEqual({ phone: '5511987654321', text: 'parar' });
    expect(
      inboundOf({
        key: { remoteJid: '123@lid', senderPn: '5511987654321@s.whatsapp.net', fromMe: false },
        message: { caption: 'foto' },
      }),
    ).toEqual({ phone: '5511987654321', text: 'foto' });
    // A sender known only by its @lid is a message nobody can be matched to.
    expect(
      inboundOf({ key: { remoteJid: '123@lid', fromMe: false }, message: { conversation: 'oi' } }),
    ).toEqual({ phone: null, text: 'oi' });
    // A picture without a caption is still a person writing.
    expect(
      inboundOf({ key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false }, message: {} }),
    ).toEqual({ phone: '5511987654321', text: null });
    expect(
      inboundOf({
        key: { remoteJid: '5511@s.whatsapp.net', fromMe: true },
        message: { conversation: 'SAIR' },
      }),
    ).toBeNull();
    for (const remoteJid of ['120363@g.us', 'status@broadcast']) {
      expect(
        inboundOf({ key: { remoteJid, fromMe: false }, message: { conversation: 'SAIR' } }),
      ).toBeNull();
    }
  });

  it('keeps the caption of a picture, a video or a document as its text', () => {
    for (const kind of ['imageMessage', 'videoMessage', 'documentMessage']) {
      const data = {
        key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: 'X' },
        message: { [kind]: { caption: 'SAIR', jpegThumbnail: 'x'.repeat(1000) } },
      };
      const stored = parseEnvelope({ event: 'messages.upsert', instance: 'l', data }, NOW)?.data;
      expect(inboundOf(stored ?? {})).toEqual({ phone: '5511987654321', text: 'SAIR' });
    }
  });

  it('matches opt-out words without case, accents, spaces or closing punctuation', () => {
    const words = ['SAIR', 'DESCADASTRAR', 'Não quero'];
    expect(isOptOut('  sair ', words)).toBe(true);
    expect(isOptOut('Sair!', words)).toBe(true);
    expect(isOptOut('descadastrar.', words)).toBe(true);
    expect(isOptOut('nao QUERO', words)).toBe(true);
    expect(isOptOut('quero sair', words)).toBe(false);
    expect(isOptOut('', words)).toBe(false);
  });

  it('reads a connection update with its reason', () => {
    expect(connectionOf({ instance: 'loja', state: 'close', statusReason: 401 })).toEqual({
      state: 'close',
      reason: 401,
    });
    expect(connectionOf({ state: 'open' })).toEqual({ state: 'open', reason: null });
    expect(connectionOf({})).toBeNull();
  });
});
