import type { Request } from 'express';

/** What a valid access token tells about its company, as guards and handlers see it. */
export interface CompanySession {
  companyId: number;
  companyName: string;
  companyEmail: string;
  tokenHash: string;
  isActive: boolean;
  /** False for a subscription-registered company without an active subscription. */
  hasServiceAccess: boolean;
  rateLimitPerMinute: number;
  rateLimitPerHour: number;
}

/** Resolves access tokens; implemented by the companies module. An abstract class as its own DI token. */
export abstract class SessionLookup {
  abstract findByToken(token: string): Promise<CompanySession | null>;
}

const ACCESS_TOKEN_HEADER = 'x-access-token';

/** The access token as the caller sent it (trimmed); empty when absent. */
export function presentedTokenOf(request: Request): string {
  const header = request.headers[ACCESS_TOKEN_HEADER];
  return typeof header === 'string' ? header.trim() : '';
}

/** What the HTTP pipeline learned of a request's session (see request-state.ts for why a WeakMap). */
interface SessionState {
  /** The access token's lookup, started once and shared by the rate limit and the guard. */
  lookup: Promise<CompanySession | null> | undefined;
  /** Set by the access-token guard once the session passed it. */
  authenticated: CompanySession | undefined;
}

const sessionStates = new WeakMap<Request, SessionState>();

function sessionStateOf(request: Request): SessionState {
  let state = sessionStates.get(request);
  if (!state) {
    state = { lookup: undefined, authenticated: undefined };
    sessionStates.set(request, state);
  }
  return state;
}

/** Resolves the request's session once; middleware and guards share the result. */
export function resolveRequestSession(
  request: Request,
  lookup: SessionLookup,
): Promise<CompanySession | null> {
  const state = sessionStateOf(request);
  if (!state.lookup) {
    const token = presentedTokenOf(request);
    state.lookup = token ? lookup.findByToken(token) : Promise.resolve(null);
  }
  return state.lookup;
}

export function attachAuthenticatedSession(request: Request, session: CompanySession): void {
  sessionStateOf(request).authenticated = session;
}

export function authenticatedSessionOf(request: Request): CompanySession | undefined {
  return sessionStateOf(request).authenticated;
}
