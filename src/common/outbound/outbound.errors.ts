/**
 * Why an outbound request did not produce a response:
 * - invalid_url: not an absolute http(s) URL (or it carries credentials).
 * - target_refused: the host is, or resolves to, an address the service never calls.
 * - unresolvable: the host name does not resolve.
 * - timeout: an answer began but did not complete within the time budget.
 * - network: the connection failed or broke (refused, reset, TLS failure, not HTTP), or the
 *   budget ran out before any answer began (connected or not); one message for all, so closed,
 *   silent and non-HTTP ports look alike.
 * - response_too_large: the response body went past the request's limit.
 * - aborted: the caller cancelled the request.
 */
export type OutboundErrorKind =
  | 'invalid_url'
  | 'target_refused'
  | 'unresolvable'
  | 'timeout'
  | 'network'
  | 'response_too_large'
  | 'aborted';

/**
 * Messages name the host only: URLs may carry tokens in their path or query. They reach
 * tenants, so they never carry what the target or the DNS answered.
 */
export class OutboundError extends Error {
  /**
   * Whether the request may have reached the server: the connection was open when the
   * exchange failed. False means provably nothing was delivered (refused connection, DNS or
   * TLS failure, a timeout before connecting), which is what makes a non-idempotent call
   * (a message send) safe to repeat.
   */
  readonly requestMayHaveArrived: boolean;

  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    options?: { cause?: unknown; requestMayHaveArrived?: boolean },
  ) {
    super(message, options);
    this.name = 'OutboundError';
    this.requestMayHaveArrived = options?.requestMayHaveArrived ?? false;
  }

  /** The same failure, known to have happened after the request may have reached the server. */
  afterRequestWritten(): OutboundError {
    return new OutboundError(this.kind, this.message, {
      cause: this.cause,
      requestMayHaveArrived: true,
    });
  }

  /** A fresh attempt may succeed (the target itself is acceptable). */
  get transient(): boolean {
    return this.kind === 'timeout' || this.kind === 'network' || this.kind === 'unresolvable';
  }
}

export class OutboundTargetRefusedError extends OutboundError {
  /** `address` stays off the message: shown to a tenant, it would map internal DNS names. */
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super('target_refused', `Destino não permitido: ${host} aponta para um endereço bloqueado`);
    this.name = 'OutboundTargetRefusedError';
  }
}
