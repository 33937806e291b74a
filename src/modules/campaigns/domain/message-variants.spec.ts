import {
  canDrawBlank,
  drawVariants,
  MAX_VARIANT_DEPTH,
  MAX_VARIANTS_PER_GROUP,
  variantProblem,
} from './message-variants';

const seeds = (count: number): string[] =>
  Array.from({ length: count }, (_v, i) => `41:55119${String(80000000 + i).padStart(8, '0')}`);

function shares(template: string, count: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const seed of seeds(count)) {
    const drawn = drawVariants(template, seed);
    counts.set(drawn, (counts.get(drawn) ?? 0) + 1);
  }
  return new Map([...counts].map(([text, n]) => [text, n / count]));
}

describe('message variants', () => {
  describe('validation', () => {
    it.each([
      'Olá {PrimeiroNome}!',
      '{Olá|Oi|Bom dia} {PrimeiroNome}, {tudo bem|como vai}?',
      '{Olá {PrimeiroNome}|Oi}',
      '{Oi|{Olá|Bom dia} {PrimeiroNome}}',
      '{Oi|} {PrimeiroNome}',
      'Preço: 10 | 20 reais, sem chaves',
      '{Obs: ligar à tarde}',
      '{{PrimeiroNome}}',
      '{a|{b|{c|d}}}',
      `{${Array.from({ length: MAX_VARIANTS_PER_GROUP }, (_v, i) => `v${i}`).join('|')}}`,
    ])('accepts %s', (template) => {
      expect(variantProblem(template)).toBeNull();
    });

    it.each([
      ['Olá {PrimeiroNome', 'abre uma chave que não foi fechada (posição 5)'],
      ['{Olá|Oi {PrimeiroNome}', 'abre uma chave que não foi fechada (posição 1)'],
      ['Olá PrimeiroNome}', 'fecha uma chave que não foi aberta (posição 17)'],
      ['} {Olá|Oi}', 'fecha uma chave que não foi aberta (posição 1)'],
      ['Olá :-{', 'abre uma chave que não foi fechada (posição 7)'],
      ['Olá {}', 'tem chaves vazias {}'],
      ['Olá {|}', 'um grupo de variantes não tem nenhuma opção preenchida'],
      ['Olá { | |  }', 'um grupo de variantes não tem nenhuma opção preenchida'],
      ['{Oi|{|}}', 'um grupo de variantes não tem nenhuma opção preenchida'],
      [
        `{${Array.from({ length: MAX_VARIANTS_PER_GROUP + 1 }, (_v, i) => `v${i}`).join('|')}}`,
        `um grupo de variantes tem ${MAX_VARIANTS_PER_GROUP + 1} opções; o máximo é ${MAX_VARIANTS_PER_GROUP}`,
      ],
      ['{a|{b|{c|{d|e}}}}', `grupos de variantes aninhados em mais de ${MAX_VARIANT_DEPTH} níveis`],
    ])('refuses %s', (template, problem) => {
      expect(variantProblem(template)).toBe(problem);
    });

    it('counts depth in groups of variants only: a variable inside the deepest group is fine', () => {
      expect(variantProblem('{a|{b|{c|{PrimeiroNome}}}}')).toBeNull();
    });

    it('refuses braces nested more than 10 deep, so no walk over a text goes deep', () => {
      expect(variantProblem('{'.repeat(10) + 'x' + '}'.repeat(10))).toBeNull();
      expect(variantProblem('{'.repeat(5000) + 'x' + '}'.repeat(5000))).toBe(
        'tem chaves aninhadas em mais de 10 níveis',
      );
      expect(drawVariants('{'.repeat(5000) + 'a|b' + '}'.repeat(5000), 'x')).toBe(
        '{'.repeat(5000) + 'a|b' + '}'.repeat(5000),
      );
    });
  });

  describe('draw', () => {
    it('leaves text without groups, and variables, as written', () => {
      expect(drawVariants('Olá {PrimeiroNome}, {Obs}!', 'x')).toBe('Olá {PrimeiroNome}, {Obs}!');
      expect(drawVariants('10 | 20 {{PrimeiroNome}}', 'x')).toBe('10 | 20 {{PrimeiroNome}}');
    });

    it('returns a template that does not parse as it is (stored before variants existed)', () => {
      expect(drawVariants('Oi :-{ {a|b}', 'x')).toBe('Oi :-{ {a|b}');
    });

    it('draws the same text for the same seed, and depends on the seed', () => {
      const template = '{Olá|Oi|Bom dia} {PrimeiroNome}, {tudo bem|como vai}?';
      for (const seed of seeds(50)) {
        expect(drawVariants(template, seed)).toBe(drawVariants(template, seed));
      }
      expect(new Set(seeds(50).map((seed) => drawVariants(template, seed))).size).toBe(6);
    });

    it('draws each of three variants in 28–38 % of 3,000 seeds', () => {
      const drawn = shares('{Olá|Oi|Bom dia}', 3000);
      expect([...drawn.keys()].sort()).toEqual(['Bom dia', 'Oi', 'Olá']);
      for (const share of drawn.values()) {
        expect(share).toBeGreaterThanOrEqual(0.28);
        expect(share).toBeLessThanOrEqual(0.38);
      }
    });

    it('draws independently in each group: all 20 × 2 combinations show up evenly', () => {
      const many = Array.from({ length: 20 }, (_v, i) => `v${i}`).join('|');
      const drawn = shares(`{${many}}-{x|y}`, 8000);
      expect(drawn.size).toBe(40);
      for (const share of drawn.values()) {
        expect(share).toBeGreaterThan(0.015);
        expect(share).toBeLessThan(0.035);
      }
    });

    it('draws within a drawn variant: nested groups', () => {
      const drawn = shares('{Oi|{Olá|Bom dia} {PrimeiroNome}}', 3000);
      expect([...drawn.keys()].sort()).toEqual([
        'Bom dia {PrimeiroNome}',
        'Oi',
        'Olá {PrimeiroNome}',
      ]);
      expect(drawn.get('Oi')).toBeGreaterThan(0.45);
      expect(drawn.get('Oi')).toBeLessThan(0.55);
      expect(drawn.get('Olá {PrimeiroNome}')).toBeGreaterThan(0.2);
      expect(drawn.get('Olá {PrimeiroNome}')).toBeLessThan(0.3);
    });

    it('keeps variables inside variants for renderMessage, and blank variants as nothing', () => {
      const drawn = shares('{Olá {PrimeiroNome}|Oi}! {Até logo|}', 1000);
      expect([...drawn.keys()].sort()).toEqual([
        'Oi! ',
        'Oi! Até logo',
        'Olá {PrimeiroNome}! ',
        'Olá {PrimeiroNome}! Até logo',
      ]);
    });
  });

  it('tells whether some draw renders blank for a contact without data', () => {
    expect(canDrawBlank('{PrimeiroNome}')).toBe(true);
    expect(canDrawBlank('{Oi|} {PrimeiroNome}')).toBe(true);
    expect(canDrawBlank('{Oi|{PrimeiroNome}}')).toBe(true);
    expect(canDrawBlank('{Oi|Olá} {PrimeiroNome}')).toBe(false);
    expect(canDrawBlank('{Obs}')).toBe(true);
    expect(canDrawBlank('{Obs: ligar}')).toBe(false);
    expect(canDrawBlank('Oi :-{')).toBe(false);
  });
});
