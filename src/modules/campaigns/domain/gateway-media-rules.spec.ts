import {
  canRenderBlank,
  describeDataUri,
  fetchedMediaUrlOf,
  gatewayAcceptsMediaUrl,
  normalizeDataUri,
} from './gateway-media-rules';

describe('gateway media rules', () => {
  it.each([
    ['https://cdn.example.com/foto.jpg', true],
    ['http://203.0.113.7/arquivo.pdf', true],
    ['http://localhost:3000/media/files/a.jpg', false],
    ['http://media_server.example.com/a.jpg', false],
    ['https://cdn.example.com/a b.jpg', false],
    ['https://cdn.example.com/<script>.jpg', false],
    [`https://cdn.example.com/${'a'.repeat(2100)}.jpg`, false],
  ])('takes URL #%# as the gateway would', (url, expected) => {
    expect(gatewayAcceptsMediaUrl(url)).toBe(expected);
  });

  it('normalizes base64 with line breaks and the URL-safe alphabet, padded', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x01, 0x02]);
    const urlSafe = bytes.toString('base64url');
    const normalized = normalizeDataUri(
      `data:image/png;base64,${urlSafe.slice(0, 3)}\n${urlSafe.slice(3)}`,
    );
    expect(normalized).toEqual({
      dataUri: `data:image/png;base64,${bytes.toString('base64')}`,
      bytes: 5,
    });
    expect(Buffer.from(normalized!.dataUri.split(',')[1], 'base64')).toEqual(bytes);
  });

  it('refuses a payload that is not base64', () => {
    expect(normalizeDataUri('data:image/png;base64,@@@@')).toBeNull();
    expect(normalizeDataUri('data:image/png;base64,')).toBeNull();
    expect(normalizeDataUri('data:image/png;base64,A')).toBeNull();
  });

  it('describes a data URI by its type and size, never its bytes', () => {
    const uri = `data:application/pdf;base64,${Buffer.alloc(1000, 7).toString('base64')}`;
    expect(describeDataUri(uri)).toBe('data:application/pdf;base64,… (1000 bytes)');
    expect(describeDataUri('https://cdn.example.com/a.pdf')).toBe('https://cdn.example.com/a.pdf');
  });

  it('tells a template made only of variables', () => {
    expect(canRenderBlank('{PrimeiroNome}')).toBe(true);
    expect(canRenderBlank(' {PrimeiroNome} {cidade} ')).toBe(true);
    expect(canRenderBlank('Olá {PrimeiroNome}')).toBe(false);
    expect(canRenderBlank(null)).toBe(false);
    expect(canRenderBlank('{Olá|Oi} {PrimeiroNome}')).toBe(false);
    expect(canRenderBlank('{Olá|} {PrimeiroNome}')).toBe(true);
  });

  it('names the URL the gateway fetches without its query or credentials, and no URL for bytes', () => {
    expect(
      fetchedMediaUrlOf({
        kind: 'media',
        mediaType: 'image',
        media: 'https://user:senha@cdn.example.com/a/oferta.png?X-Amz-Signature=segredo#x',
      }),
    ).toBe('https://cdn.example.com/a/oferta.png');
    expect(fetchedMediaUrlOf({ kind: 'audio', audio: 'http://203.0.113.7:8080/voz.ogg?t=1' })).toBe(
      'http://203.0.113.7:8080/voz.ogg',
    );
    expect(fetchedMediaUrlOf({ kind: 'media', mediaType: 'image', media: 'iVBORw0KGgo=' })).toBe(
      null,
    );
    expect(fetchedMediaUrlOf({ kind: 'text', text: 'https://cdn.example.com/x.png' })).toBe(null);
  });
});
