import { templateFromMeta, usesNamedParameters } from './gateway-template';

describe('templateFromMeta', () => {
  it('counts distinct positional body parameters and a media header', () => {
    expect(
      templateFromMeta({
        id: '123',
        name: 'promo',
        language: 'pt_BR',
        status: 'APPROVED',
        category: 'MARKETING',
        components: [
          { type: 'HEADER', format: 'VIDEO' },
          { type: 'BODY', text: '{{1}} e {{2}}, de novo {{1}}' },
        ],
      }),
    ).toMatchObject({
      metaId: '123',
      bodyParameters: 2,
      headerParameters: 0,
      headerFormat: 'VIDEO',
    });
  });

  it('counts named parameters and a TEXT header parameter', () => {
    expect(
      templateFromMeta({
        name: 'pedido',
        language: 'pt_BR',
        status: 'PAUSED',
        category: 'UTILITY',
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'Pedido {{ numero }}' },
          { type: 'BODY', text: 'Oi {{first_name}}' },
        ],
      }),
    ).toMatchObject({ bodyParameters: 1, headerParameters: 1, headerFormat: 'TEXT' });
  });

  it('has no header format and no parameters without those components', () => {
    expect(
      templateFromMeta({ name: 'hello_world', language: 'en_US', components: [] }),
    ).toMatchObject({
      bodyParameters: 0,
      headerParameters: 0,
      headerFormat: null,
      category: 'UNKNOWN',
      status: 'UNKNOWN',
    });
  });

  it('skips an entry without a name or a language', () => {
    expect(templateFromMeta({ language: 'pt_BR' })).toBeNull();
    expect(templateFromMeta('x')).toBeNull();
  });
});

describe('usesNamedParameters', () => {
  const body = (text: string) => ({
    components: [
      { type: 'HEADER', format: 'TEXT', text: '{{x}}' },
      { type: 'BODY', text },
    ],
  });

  it.each([
    ['Olá {{1}}, seu pedido {{2}}', false],
    ['Olá {{ 1 }}', false],
    ['Sem parâmetros', false],
    ['Olá {{first_name}}, pedido {{order_id}}', true],
    ['Olá {{nome}}', true],
  ])('reads %p as named: %p', (text, named) => {
    expect(usesNamedParameters(body(text))).toBe(named);
  });

  it('is false without a body', () => {
    expect(usesNamedParameters({ components: [] })).toBe(false);
  });
});
