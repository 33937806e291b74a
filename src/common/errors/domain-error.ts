/**
 * What went wrong, in terms the HTTP edge can map without knowing the feature:
 * the global exception filter turns each kind into one status code.
 */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'payload_too_large'
  | 'rate_limited'
  | 'unavailable';

/** A failure the caller can act on; `message` is Portuguese and shown to the client. */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly kind: ErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The base of the errors of one kind that carry nothing but their code and message. */
function domainErrorOf(kind: ErrorKind) {
  return class extends DomainError {
    constructor(code: string, message: string) {
      super(code, kind, message);
    }
  };
}

export class NotFoundError extends domainErrorOf('not_found') {}
export class ForbiddenError extends domainErrorOf('forbidden') {}
export class InvalidInputError extends domainErrorOf('invalid') {}
export class UnauthorizedError extends domainErrorOf('unauthorized') {}

export class RateLimitedError extends DomainError {
  constructor(
    code: string,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, 'rate_limited', message);
  }
}

/** Field-by-field validation failure, rendered as `{field=texto, field=texto}`. */
export class ValidationFailedError extends DomainError {
  constructor(readonly fieldErrors: ReadonlyArray<readonly [field: string, message: string]>) {
    super('VALIDATION.FAILED', 'invalid', renderFieldErrors(fieldErrors));
  }
}

export function renderFieldErrors(
  fieldErrors: ReadonlyArray<readonly [field: string, message: string]>,
): string {
  return `{${fieldErrors.map(([field, message]) => `${field}=${message}`).join(', ')}}`;
}
