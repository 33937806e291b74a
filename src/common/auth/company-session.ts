import type { Request } from 'express';
import { requestStateOf } from '../http/request-state';

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

/** Resolves the request's session once; middleware and guards share the result. */
export function resolveRequestSession(
  request: Request,
  lookup: SessionLookup,
): Promise<CompanySession | null> {
  const state = requestStateOf(request);
  if (!state.sessionLookup) {
    const token = presentedTokenOf(request);
    state.sessionLookup = token ? lookup.findByToken(token) : Promise.resolve(null);
  }
  return state.sessionLookup;
}

export function attachAuthenticatedSession(request: Request, session: CompanySession): void {
  requestStateOf(request).authenticated = session;
}

export function authenticatedSessionOf(request: Request): CompanySession | undefined {
  return requestStateOf(request).authenticated;
}
