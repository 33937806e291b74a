import { connectionOf, isOptOut, parseEnvelope, receiptOf, replyOf } from './gateway-event';

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
    expect(parseEnvelope([], NOW)).toBe('invalid');
    expect(parseEnvelope({ event: 1, instance: 'loja' }, NOW)).toBe('invalid');
  });

  it('ranks receipts and ignores what is not ours', () => {
    expect(receiptOf({ keyId: 'K', status: 'DELIVERY_ACK', fromMe: true })).toEqual({
      keyId: 'K',
      rank: 3,
    });
    expect(receiptOf({ keyId: 'K', status: 'PLAYED' })).toEqual({ keyId: 'K', rank: 5 });
    expect(receiptOf({ keyId: 'K', status: 'ERROR' })).toEqual({ keyId: 'K', rank: 0 });
    expect(receiptOf({ keyId: 'K', status: 'PENDING' })).toBeNull();
    expect(receiptOf({ keyId: 'K', status: 'READ', fromMe: false })).toBeNull();
    expect(receiptOf({ status: 'READ' })).toBeNull();
  });

  it('finds a person’s reply and its phone, in conversation or extended text', () => {
    expect(
      replyOf({
        key: { remoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: 'X' },
        message: { conversation: ' Sair ' },
      }),
    ).toEqual({ phone: '5511987654321', text: ' Sair ' });
    expect(
      replyOf({
        key: { remoteJid: '123@lid', remoteJidAlt: '5511987654321@s.whatsapp.net', fromMe: false },
        message: { extendedTextMessage: { text: 'parar' } },
      }),
    ).toEqual({ phone: '5511987654321', text: 'parar' });
    expect(
      replyOf({
        key: { remoteJid: '5511@s.whatsapp.net', fromMe: true },
        message: { conversation: 'SAIR' },
      }),
    ).toBeNull();
    expect(
      replyOf({
        key: { remoteJid: '120363@g.us', fromMe: false },
        message: { conversation: 'SAIR' },
      }),
    ).toBeNull();
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
