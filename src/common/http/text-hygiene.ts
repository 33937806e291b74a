import { ValidationFailedError } from '../errors/domain-error';

/** NUL (PostgreSQL refuses it in text) or a UTF-16 surrogate, lone or not: checked closer below. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE =
  'contém um caractere não permitido (NUL ou metade de um par UTF-16)';

/**
 * The deepest nesting of arrays and objects a body may have (the outermost counts as 1). No
 * request of the API nests past 10 and a gateway event past about 15; past this, the
 * recursive walks after this check (class-transformer, class-validator, the idempotency
 * fingerprint) could run out of stack, which answered 500.
 */
export const MAX_BODY_DEPTH = 64;
const TOO_DEEP_MESSAGE = `tem mais de ${MAX_BODY_DEPTH} níveis de listas e objetos aninhados`;

function isUnsafe(text: string): boolean {
  return SUSPECT.test(text) && UNSAFE.test(text);
}

type Container = unknown[] | Record<string, unknown>;

/** One array or object being walked: its keys (null for an array) and the next to visit. */
interface Frame {
  container: Container;
  keys: string[] | null;
  next: number;
}

function frameOf(container: Container): Frame {
  return { container, keys: Array.isArray(container) ? null : Object.keys(container), next: 0 };
}

/** The segments of the value the walk visits last: each open frame's current key or index. */
function segmentsOf(stack: readonly Frame[]): Array<string | number> {
  return stack.map((frame) => (frame.keys ? frame.keys[frame.next - 1] : frame.next - 1));
}

interface Problem {
  segments: Array<string | number>;
  message: string;
}

/**
 * The first string or key with unsafe text, or the first container nested past
 * MAX_BODY_DEPTH, in one walk with an explicit stack: a body nested 100,000 deep overflowed
 * the call stack of the recursive walk this replaced. The path is built only on a find, since
 * a push import's body has hundreds of thousands of strings and nearly always none to report.
 */
function firstProblem(value: unknown): Problem | null {
  if (typeof value === 'string') {
    return isUnsafe(value) ? { segments: [], message: UNSAFE_TEXT_MESSAGE } : null;
  }
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const stack: Frame[] = [frameOf(value as Container)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const { container, keys } = frame;
    if (frame.next === (keys ?? (container as unknown[])).length) {
      stack.pop();
      continue;
    }
    const at = frame.next++;
    let child: unknown;
    if (keys) {
      if (isUnsafe(keys[at])) {
        return { segments: segmentsOf(stack), message: UNSAFE_TEXT_MESSAGE };
      }
      child = (container as Record<string, unknown>)[keys[at]];
    } else {
      child = (container as unknown[])[at];
    }
    if (typeof child === 'string') {
      if (isUnsafe(child)) {
        return { segments: segmentsOf(stack), message: UNSAFE_TEXT_MESSAGE };
      }
    } else if (typeof child === 'object' && child !== null) {
      if (stack.length === MAX_BODY_DEPTH) {
        // The whole body is named: a path 64 segments long would tell the caller nothing.
        return { segments: [], message: TOO_DEEP_MESSAGE };
      }
      stack.push(frameOf(child as Container));
    }
  }
  return null;
}

/**
 * The first problem of `value` as a field error: the path (`contacts[3].name`) of a string or
 * key holding a NUL or a lone UTF-16 surrogate, which no text column can store, or `path`
 * itself (else `body`) when it nests deeper than MAX_BODY_DEPTH; null when there is none.
 */
export function bodyProblem(value: unknown, path = ''): [field: string, message: string] | null {
  const problem = firstProblem(value);
  if (!problem) {
    return null;
  }
  const field = problem.segments.reduce<string>(
    (parent, segment) =>
      typeof segment === 'number'
        ? `${parent}[${segment}]`
        : parent
          ? `${parent}.${segment}`
          : segment,
    path,
  );
  return [field || 'body', problem.message];
}

/** One rule for every input: a 400 naming the field, never a database error or a 500. */
export function assertSafeBody(value: unknown, path = ''): void {
  const problem = bodyProblem(value, path);
  if (problem) {
    throw new ValidationFailedError([problem]);
  }
}
