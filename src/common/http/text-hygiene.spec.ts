import { assertSafeBody, bodyProblem, MAX_BODY_DEPTH, UNSAFE_TEXT_MESSAGE } from './text-hygiene';

/** `[[…[leaf]…]]` with `depth` arrays. */
function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) {
    value = [value];
  }
  return value;
}

describe('text hygiene', () => {
  it('names the first field with a NUL or a lone surrogate, at any depth', () => {
    const field = (value: unknown): string | undefined => bodyProblem(value)?.[0];
    expect(bodyProblem({ name: 'a\u0000b' })).toEqual(['name', UNSAFE_TEXT_MESSAGE]);
    expect(field({ contacts: [{ name: 'ok' }, { name: 'x\uD800' }] })).toBe('contacts[1].name');
    expect(field({ a: { b: ['\uDC00y'] } })).toBe('a.b[0]');
    expect(field({ ok: { fine: 1 }, ['k\u0000']: 1 })).toBe('k\u0000');
    expect(field({ ok: [{ x: 'y' }], deep: { ['k\u0000']: 1 } })).toBe('deep.k\u0000');
    expect(field('\u0000')).toBe('body');
    expect(bodyProblem({ q: ['ok', '\u0000'] }, 'config')?.[0]).toBe('config.q[1]');
  });

  it('lets through surrogate pairs (emoji) and ordinary text', () => {
    expect(
      bodyProblem({ message: 'Olá 👋 {PrimeiroNome}', n: 1, ok: true, none: null }),
    ).toBeNull();
    expect(bodyProblem(['\uD83D\uDE00'])).toBeNull();
    expect(bodyProblem([[], {}, [{}]])).toBeNull();
  });

  it(`accepts ${MAX_BODY_DEPTH} levels of nesting and refuses one more, naming the body`, () => {
    expect(bodyProblem(nested(MAX_BODY_DEPTH))).toBeNull();
    expect(bodyProblem({ a: nested(MAX_BODY_DEPTH - 1) })).toBeNull();
    expect(bodyProblem(nested(MAX_BODY_DEPTH + 1))).toEqual([
      'body',
      expect.stringContaining(`${MAX_BODY_DEPTH} níveis`),
    ]);
    expect(bodyProblem({ a: nested(MAX_BODY_DEPTH) }, 'config')?.[0]).toBe('config');
  });

  it('walks a body far deeper than the call stack allows without overflowing it', () => {
    // Both what JSON.parse builds from 300,000 brackets (the body that answered 500) and a
    // deep chain of objects; the walk stops at the limit instead of descending further.
    const deepArray: unknown = JSON.parse(`${'['.repeat(300_000)}${']'.repeat(300_000)}`);
    expect(() => assertSafeBody(deepArray)).toThrow(/body=tem mais de 64 níveis/);
    let chain: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i += 1) {
      chain = { next: chain };
    }
    expect(() => assertSafeBody(chain)).toThrow(/body=/);
  });

  it('reports an unsafe string found before the walk gets too deep', () => {
    expect(bodyProblem([{ name: '\u0000' }, nested(MAX_BODY_DEPTH + 1)])?.[0]).toBe('[0].name');
  });
});
