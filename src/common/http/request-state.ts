import type { IncomingMessage } from 'node:http';

/**
 * What the HTTP pipeline learns about a request (its id; the session's are in company-session.ts), kept beside
 * the request rather than as new properties on it: Express's request objects already carry
 * many properties, and adding more to each one cost microseconds per request in V8, against
 * a fraction of that for one WeakMap entry of a fixed shape.
 */
export interface RequestState {
  /** X-Request-Id, given by RequestLogMiddleware. */
  id: string | undefined;
}

const states = new WeakMap<IncomingMessage, RequestState>();

export function requestStateOf(request: IncomingMessage): RequestState {
  let state = states.get(request);
  if (!state) {
    state = { id: undefined };
    states.set(request, state);
  }
  return state;
}

/** The id RequestLogMiddleware gave the request (the client's X-Request-Id when valid). */
export function requestIdOf(request: IncomingMessage): string | undefined {
  return requestStateOf(request).id;
}
