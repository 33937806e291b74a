import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/time/clock';
import { Company, CompanySettingsChanges } from '../domain/company.entity';
import { CompanyNotFoundError } from '../domain/company.errors';
import { CompaniesRepository } from '../infrastructure/companies.repository';
import { SessionCache } from './session-cache.service';
import { checkSendingWindow } from '../../../common/time/sending-window';
import { ValidationFailedError } from '../../../common/errors/domain-error';

/** What other modules may ask about a company: its feature flags and limits. */
@Injectable()
export class CompanySettingsService {
  constructor(
    private readonly companies: CompaniesRepository,
    private readonly sessions: SessionCache,
    private readonly clock: Clock,
  ) {}

  async get(companyId: number): Promise<Company> {
    const company = await this.companies.findById(companyId);
    if (!company) {
      throw new CompanyNotFoundError();
    }
    return company;
  }

  async change(companyId: number, changes: CompanySettingsChanges): Promise<Company> {
    if (changes.sendingWindow) {
      const errors: Array<[string, string]> = [];
      changes = { ...changes, sendingWindow: checkSendingWindow(changes.sendingWindow, errors) };
      if (errors.length > 0) {
        throw new ValidationFailedError(errors);
      }
    }
    const company = await this.get(companyId);
    company.changeSettings(changes, this.clock.now());
    await this.companies.save(company);
    this.sessions.forgetCompany(companyId);
    return company;
  }
}
