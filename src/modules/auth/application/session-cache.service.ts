import { Injectable } from '@nestjs/common';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { CompanySession, SessionLookup } from '../../../common/session/company-session';
import { sha256Hex } from '../../../common/crypto/hashing';
import { AppConfig } from '../../../config/app-config.service';
import { grantsServiceAccess } from '../domain/registration-type';
import { AccessTokensRepository, TokenCompanyRow } from './ports/access-tokens.repository';
import {
  CompaniesRepository,
  CompanyWithSubscription,
} from '../infrastructure/companies.repository';

/**
 * Sessions and company views are cached for at most this long, so that admin changes,
 * deactivations and revocations made on another instance take effect within the 5 s
 * docs/API-RULES.md §2 allows; changes made on this instance invalidate at once.
 */
export const SESSION_CACHE_TTL_MS = 4_000;
const MAX_CACHED_SESSIONS = 50_000;
const MAX_CACHED_COMPANIES = 10_000;

/**
 * The per-request lookups of an authenticated call (token → session, and the company's view
 * for /api/auth/me), answered from memory so that a request costs no query in the common case.
 */
@Injectable()
export class SessionCache extends SessionLookup {
  private readonly sessions = new ExpiringMap<string, CompanySession | null>(
    SESSION_CACHE_TTL_MS,
    MAX_CACHED_SESSIONS,
  );
  private readonly companyViews = new ExpiringMap<number, CompanyWithSubscription | null>(
    SESSION_CACHE_TTL_MS,
    MAX_CACHED_COMPANIES,
  );
  /**
   * Bumped by every forget: a lookup that was in flight when something was forgotten answers
   * its caller but is not cached, so a revoked token or a changed company cannot be put back.
   */
  private generation = 0;

  constructor(
    private readonly tokens: AccessTokensRepository,
    private readonly companies: CompaniesRepository,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async findByToken(token: string): Promise<CompanySession | null> {
    const tokenHash = sha256Hex(token);
    const cached = this.sessions.get(tokenHash);
    if (cached) {
      return cached.value;
    }
    const generation = this.generation;
    const row = await this.tokens.findLiveTokenCompany(tokenHash);
    const session = row ? this.toSession(row, tokenHash) : null;
    if (generation === this.generation) {
      this.sessions.set(tokenHash, session);
    }
    return session;
  }

  /** The company with its subscription; callers must not modify what it returns. */
  async findCompanyView(companyId: number): Promise<CompanyWithSubscription | null> {
    const cached = this.companyViews.get(companyId);
    if (cached) {
      return cached.value;
    }
    const generation = this.generation;
    const view = await this.companies.findWithSubscription(companyId);
    if (generation === this.generation) {
      this.companyViews.set(companyId, view);
    }
    return view;
  }

  forgetToken(tokenHash: string): void {
    this.generation += 1;
    this.sessions.delete(tokenHash);
  }

  forgetCompany(companyId: number): void {
    this.generation += 1;
    this.sessions.deleteWhere((session) => session?.companyId === companyId);
    this.companyViews.delete(companyId);
  }

  private toSession(row: TokenCompanyRow, tokenHash: string): CompanySession {
    return {
      companyId: row.company_id,
      companyName: row.name,
      companyEmail: row.email,
      tokenHash,
      isActive: row.is_active,
      hasServiceAccess: grantsServiceAccess(row.registration_type, row.subscription_status),
      rateLimitPerMinute: row.rate_limit_per_minute ?? this.config.rateLimitPerMinute,
      rateLimitPerHour: row.rate_limit_per_hour ?? this.config.rateLimitPerHour,
    };
  }
}
