import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { managerOf } from '../../../database/transactions';
import { Company } from '../domain/company.entity';
import { CompanySubscription } from '../domain/company-subscription.entity';

export interface CompanyWithSubscription {
  company: Company;
  subscription: CompanySubscription | null;
}

/** Companies are the tenants themselves, so these methods are keyed by the company's own id. */
@Injectable()
export class CompaniesRepository {
  constructor(
    @InjectRepository(Company) private readonly companies: Repository<Company>,
    @InjectRepository(CompanySubscription)
    private readonly subscriptions: Repository<CompanySubscription>,
  ) {}

  findByEmail(email: string): Promise<Company | null> {
    return this.companies
      .createQueryBuilder('c')
      .where('lower(c.email) = lower(:email)', { email })
      .getOne();
  }

  existsByEmail(email: string): Promise<boolean> {
    return this.companies
      .createQueryBuilder('c')
      .where('lower(c.email) = lower(:email)', { email })
      .getExists();
  }

  findById(companyId: number): Promise<Company | null> {
    return this.companies.findOne({ where: { id: companyId } });
  }

  findSubscription(companyId: number): Promise<CompanySubscription | null> {
    return this.subscriptions.findOne({ where: { companyId } });
  }

  /** One query: the company view that /api/auth/me answers from (through SessionCache). */
  async findWithSubscription(companyId: number): Promise<CompanyWithSubscription | null> {
    const company = await this.companies
      .createQueryBuilder('c')
      .leftJoinAndMapOne('c.subscription', CompanySubscription, 's', 's.companyId = c.id')
      .where('c.id = :companyId', { companyId })
      .getOne();
    if (!company) {
      return null;
    }
    const { subscription, ...rest } = company as Company & { subscription?: CompanySubscription };
    return { company: Object.assign(new Company(), rest), subscription: subscription ?? null };
  }

  async listWithSubscriptions(): Promise<CompanyWithSubscription[]> {
    const [companies, subscriptions] = await Promise.all([
      this.companies.find({ order: { id: 'ASC' } }),
      this.subscriptions.find(),
    ]);
    const byCompany = new Map(subscriptions.map((s) => [s.companyId, s]));
    return companies.map((company) => ({
      company,
      subscription: byCompany.get(company.id) ?? null,
    }));
  }

  save(company: Company, tx?: Transaction): Promise<Company> {
    return tx ? managerOf(tx).save(company) : this.companies.save(company);
  }

  saveSubscription(subscription: CompanySubscription): Promise<CompanySubscription> {
    return this.subscriptions.save(subscription);
  }
}
