import { ValidationFailedError } from '../errors/domain-error';

/** NUL (PostgreSQL refuses it in text) or a UTF-16 surrogate, lone or not: checked closer below. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE =
  'contém um caractere não permitido (NUL ou metade de um par UTF-16)';

function isUnsafe(text: string): boolean {
  return SUSPECT.test(text) && UNSAFE.test(text);
}

/**
 * Where the first unsafe string or key of `value` is, as its path from the innermost segment
 * out; built only on the way back from a find, since a push import's body has hundreds of
 * thousands of strings and nearly always none to report.
 */
function unsafeSegments(value: unknown): Array<string | number> | null {
  if (typeof value === 'string') {
    return isUnsafe(value) ? [] : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = unsafeSegments(value[i]);
      if (found) {
        found.push(i);
        return found;
      }
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      if (isUnsafe(key)) {
        return [key];
      }
      const found = unsafeSegments((value as Record<string, unknown>)[key]);
      if (found) {
        found.push(key);
        return found;
      }
    }
  }
  return null;
}

/**
 * The path (`contacts[3].name`) of the first string or key in `value` that holds a NUL or a
 * lone UTF-16 surrogate, which no text column can store; null when there is none.
 */
export function firstUnsafeText(value: unknown, path = ''): string | null {
  const segments = unsafeSegments(value);
  if (!segments) {
    return null;
  }
  const field = segments
    .reverse()
    .reduce<string>(
      (parent, segment) =>
        typeof segment === 'number'
          ? `${parent}[${segment}]`
          : parent
            ? `${parent}.${segment}`
            : segment,
      path,
    );
  return field || 'body';
}

/** One rule for every input: a 400 naming the field, never a database error. */
export function assertSafeText(value: unknown, path = ''): void {
  const field = firstUnsafeText(value, path);
  if (field) {
    throw new ValidationFailedError([[field, UNSAFE_TEXT_MESSAGE]]);
  }
}
