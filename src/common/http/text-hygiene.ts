import { ValidationFailedError } from '../errors/domain-error';

/** NUL (PostgreSQL refuses it in text) or a UTF-16 surrogate, lone or not: checked closer below. */
const NUL = String.fromCharCode(0);
const SUSPECT = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE =
  'contém um caractere não permitido (NUL ou metade de um par UTF-16)';

function isUnsafe(text: string): boolean {
  return text.includes(NUL) || (SUSPECT.test(text) && LONE_SURROGATE.test(text));
}

/**
 * The path (`contacts[3].name`) of the first string or key in `value` that holds a NUL or a
 * lone UTF-16 surrogate, which no text column can store; null when there is none.
 */
export function firstUnsafeText(value: unknown, path = ''): string | null {
  if (typeof value === 'string') {
    return isUnsafe(value) ? path || 'body' : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = firstUnsafeText(value[i], `${path}[${i}]`);
      if (found) {
        return found;
      }
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (isUnsafe(key)) {
        return field;
      }
      const found = firstUnsafeText(item, field);
      if (found) {
        return found;
      }
    }
  }
  return null;
}

/** One rule for every input: a 400 naming the field, never a database error. */
export function assertSafeText(value: unknown, path = ''): void {
  const field = firstUnsafeText(value, path);
  if (field) {
    throw new ValidationFailedError([[field, UNSAFE_TEXT_MESSAGE]]);
  }
}
