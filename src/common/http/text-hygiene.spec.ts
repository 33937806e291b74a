import { firstUnsafeText } from './text-hygiene';

describe('text hygiene', () => {
  it('names the first field with a NUL or a lone surrogate, at any depth', () => {
    expect(firstUnsafeText({ name: 'a\u0000b' })).toBe('name');
    expect(firstUnsafeText({ contacts: [{ name: 'ok' }, { name: 'x\uD800' }] })).toBe(
      'contacts[1].name',
    );
    expect(firstUnsafeText({ a: { b: ['\uDC00y'] } })).toBe('a.b[0]');
    expect(firstUnsafeText({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(firstUnsafeText('\u0000')).toBe('body');
  });

  it('lets through surrogate pairs (emoji) and ordinary text', () => {
    expect(
      firstUnsafeText({ message: 'Olá 👋 {PrimeiroNome}', n: 1, ok: true, none: null }),
    ).toBeNull();
    expect(firstUnsafeText(['\uD83D\uDE00'])).toBeNull();
  });
});
