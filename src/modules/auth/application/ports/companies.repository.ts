import type { CompanySubscription } from '../../domain/company-subscription.entity';
import type { Company } from '../../domain/company.entity';
export interface CompanyWithSubscription {
  company: Company;
  subscription: CompanySubscription | null;
}

/** Companies are the tenants themselves, so these methods are keyed by the company's own id. */
export abstract class CompaniesRepository {
  abstract findByEmail(email: string): Promise<Company | null>;
  abstract existsByEmail(email: string): Promise<boolean>;
  abstract findById(companyId: number): Promise<Company | null>;
  abstract findSubscription(companyId: number): Promise<CompanySubscription | null>;
  /** One query: the company view that /api/auth/me answers from (through SessionCache). */
  abstract findWithSubscription(companyId: number): Promise<CompanyWithSubscription | null>;
  abstract listWithSubscriptions(): Promise<CompanyWithSubscription[]>;
  abstract save(company: Company): Promise<Company>;
  abstract saveSubscription(subscription: CompanySubscription): Promise<CompanySubscription>;
}
