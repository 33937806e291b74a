import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CompanyAdminChanges, SystemLimits } from '../domain/company.entity';
import { CompanySubscription, SubscriptionFields } from '../domain/company-subscription.entity';
import { CompanyNotFoundError } from '../domain/company.errors';
import {
  CompaniesRepository,
  CompanyWithSubscription,
} from '../infrastructure/companies.repository';
import { systemLimits } from './auth.service';
import { SessionCache } from './session-cache.service';

export interface AdminCompanyView extends CompanyWithSubscription {
  limits: SystemLimits;
}

@Injectable()
export class CompaniesAdminService {
  constructor(
    private readonly companies: CompaniesRepository,
    private readonly sessions: SessionCache,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async list(): Promise<AdminCompanyView[]> {
    return (await this.companies.listWithSubscriptions()).map((found) => this.view(found));
  }

  async get(companyId: number): Promise<AdminCompanyView> {
    return this.view(await this.findOrFail(companyId));
  }

  async update(companyId: number, changes: CompanyAdminChanges): Promise<AdminCompanyView> {
    const found = await this.findOrFail(companyId);
    found.company.applyAdminChanges(changes, this.clock.now());
    await this.companies.save(found.company);
    this.sessions.forgetCompany(companyId);
    return this.view(found);
  }

  async replaceSubscription(
    companyId: number,
    fields: SubscriptionFields,
  ): Promise<AdminCompanyView> {
    const found = await this.findOrFail(companyId);
    const now = this.clock.now();
    if (found.subscription) {
      found.subscription.replace(fields, now);
    } else {
      found.subscription = CompanySubscription.for(companyId, fields, now);
    }
    await this.companies.saveSubscription(found.subscription);
    // Read back what PostgreSQL stored, so that the answer shows the amount as login will ("99.90", not "99.9").
    found.subscription = await this.companies.findSubscription(companyId);
    this.sessions.forgetCompany(companyId);
    return this.view(found);
  }

  private async findOrFail(companyId: number): Promise<CompanyWithSubscription> {
    const found = await this.companies.findWithSubscription(companyId);
    if (!found) {
      throw new CompanyNotFoundError();
    }
    return found;
  }

  private view(found: CompanyWithSubscription): AdminCompanyView {
    return { ...found, limits: found.company.effectiveLimits(systemLimits(this.config)) };
  }
}
