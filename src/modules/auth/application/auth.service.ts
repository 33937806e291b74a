import { Injectable, Logger } from '@nestjs/common';
import { CompanySession } from '../../../common/session/company-session';
import { newOpaqueToken, sha256Hex } from '../../../common/crypto/hashing';
import { isUniqueViolation } from '../../../common/errors/unique-violation';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { AccessToken } from '../domain/access-token.entity';
import { Company, SystemLimits } from '../domain/company.entity';
import { CompanySubscription } from '../domain/company-subscription.entity';
import {
  CompanyDeactivatedError,
  CompanyNotFoundError,
  EmailAlreadyRegisteredError,
  TooManyFailedLoginsError,
  WrongCredentialsError,
} from '../domain/company.errors';
import { AccessTokensRepository } from './ports/access-tokens.repository';
import { CompaniesRepository } from '../infrastructure/companies.repository';
import { LoginFailuresRepository } from '../infrastructure/login-failures.repository';
import { PasswordHasher } from './password-hasher';
import { SessionCache } from './session-cache.service';

export const FAILED_LOGIN_LIMIT = 10;
export const FAILED_LOGIN_WINDOW_MS = 15 * 60 * 1000;

export interface AuthenticatedCompany {
  accessToken: string;
  company: Company;
  subscription: CompanySubscription | null;
  limits: SystemLimits;
}

@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly companies: CompaniesRepository,
    private readonly tokens: AccessTokensRepository,
    private readonly loginFailures: LoginFailuresRepository,
    private readonly hasher: PasswordHasher,
    private readonly sessions: SessionCache,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async register(input: {
    name?: string;
    email: string;
    password: string;
  }): Promise<AuthenticatedCompany> {
    const email = input.email.trim();
    if (await this.companies.existsByEmail(email)) {
      throw new EmailAlreadyRegisteredError();
    }
    const now = this.clock.now();
    const company = Company.register(
      {
        name: input.name?.trim() || email.split('@')[0].slice(0, 100),
        email,
        passwordHash: await this.hasher.hash(input.password),
        registrationType: 'admin_password',
      },
      now,
    );
    const accessToken = newOpaqueToken();
    try {
      await this.unitOfWork.run(async (tx) => {
        await this.companies.save(company, tx);
        await this.tokens.save(AccessToken.issue(company.id, sha256Hex(accessToken), now), tx);
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new EmailAlreadyRegisteredError();
      }
      throw error;
    }
    this.logger.log({ companyId: company.id }, 'Company registered');
    return { accessToken, company, subscription: null, limits: this.limitsOf(company) };
  }

  async login(
    input: { email: string; password: string },
    clientIp: string,
  ): Promise<AuthenticatedCompany> {
    const email = input.email.trim();
    const now = this.clock.now();
    await this.refuseAfterTooManyFailures(email, clientIp, now);
    const company = await this.companies.findByEmail(email);
    const passwordOk = await this.hasher.verify(input.password, company?.passwordHash ?? null);
    if (!company || !passwordOk) {
      await this.loginFailures.record(email, clientIp, now);
      throw new WrongCredentialsError();
    }
    if (!company.isActive) {
      throw new CompanyDeactivatedError();
    }
    await this.loginFailures.clear(email, clientIp);
    const accessToken = newOpaqueToken();
    await this.tokens.save(AccessToken.issue(company.id, sha256Hex(accessToken), now));
    const subscription = await this.companies.findSubscription(company.id);
    return { accessToken, company, subscription, limits: this.limitsOf(company) };
  }

  async me(session: CompanySession, presentedToken: string): Promise<AuthenticatedCompany> {
    const found = await this.sessions.findCompanyView(session.companyId);
    if (!found) {
      throw new CompanyNotFoundError();
    }
    return { accessToken: presentedToken, ...found, limits: this.limitsOf(found.company) };
  }

  async logout(session: CompanySession): Promise<void> {
    await this.tokens.revoke(session.companyId, session.tokenHash, this.clock.now());
    this.sessions.forgetToken(session.tokenHash);
  }

  private async refuseAfterTooManyFailures(email: string, ip: string, now: Date): Promise<void> {
    const since = new Date(now.getTime() - FAILED_LOGIN_WINDOW_MS);
    const { count, oldestAt } = await this.loginFailures.recentFailures(email, ip, since);
    if (count >= FAILED_LOGIN_LIMIT && oldestAt) {
      const retryAfterMs = oldestAt.getTime() + FAILED_LOGIN_WINDOW_MS - now.getTime();
      throw new TooManyFailedLoginsError(Math.max(1, Math.ceil(retryAfterMs / 1000)));
    }
  }

  private limitsOf(company: Company): SystemLimits {
    return company.effectiveLimits(systemLimits(this.config));
  }
}

export function systemLimits(config: AppConfig): SystemLimits {
  return {
    rateLimitPerMinute: config.rateLimitPerMinute,
    rateLimitPerHour: config.rateLimitPerHour,
    campaignCreationsPerHour: config.campaignCreationsPerHour,
    automationLimit: config.defaultAutomationLimit,
    databaseLimit: config.defaultDatabaseLimit,
  };
}
