import { Company, CompanyAdminChanges, SystemLimits } from './company.entity';
import { CompanySubscription, SubscriptionFields } from './company-subscription.entity';
import { RegistrationType } from './registration-type';

const REGISTERED_AT = new Date('2026-03-01T12:00:00.000Z');
const LATER = new Date('2026-03-02T08:30:00.000Z');

const SYSTEM: SystemLimits = {
  rateLimitPerMinute: 60,
  rateLimitPerHour: 1000,
  campaignCreationsPerHour: 10,
  automationLimit: 10,
  databaseLimit: 20,
};

function newCompany(registrationType: RegistrationType = 'admin_password'): Company {
  return Company.register(
    {
      name: 'Loja da Maria',
      email: 'contato@lojadamaria.com.br',
      passwordHash: '$2b$10$hash',
      registrationType,
    },
    REGISTERED_AT,
  );
}

function subscription(status: string | null): CompanySubscription {
  const fields: SubscriptionFields = {
    subscriptionId: 'sub-1',
    payerId: null,
    subscriptionStatus: status,
    subscriptionReason: null,
    externalReference: null,
    preapprovalPlanId: null,
    subscriptionStartDate: null,
    nextPaymentDate: null,
    collectorId: null,
    subscriptionInitPoint: null,
    transactionAmount: '99.90',
    frequencyType: 'monthly',
  };
  return CompanySubscription.for(1, fields, REGISTERED_AT);
}

describe('Company', () => {
  describe('register', () => {
    it('starts active, with every feature on, no limit overrides and both timestamps at the registration time', () => {
      const company = newCompany();
      expect(company).toMatchObject({
        name: 'Loja da Maria',
        email: 'contato@lojadamaria.com.br',
        passwordHash: '$2b$10$hash',
        registrationType: 'admin_password',
        isActive: true,
        blockedContactsEnabled: true,
        pollCampaignsEnabled: true,
        automationsEnabled: true,
        rateLimitPerMinute: null,
        rateLimitPerHour: null,
        campaignCreationsPerHour: null,
        automationLimit: null,
        databaseLimit: null,
        createdAt: REGISTERED_AT,
        updatedAt: REGISTERED_AT,
      });
    });

    it('keeps the registration type it was given', () => {
      expect(newCompany('subscription').registrationType).toBe('subscription');
    });
  });

  describe('hasServiceAccess', () => {
    const cases: Array<[RegistrationType, string | null | undefined, boolean]> = [
      ['admin_password', undefined, true],
      ['admin_password', null, true],
      ['admin_password', 'active', true],
      ['admin_password', 'authorized', true],
      ['admin_password', 'paused', true],
      ['admin_password', 'cancelled', true],
      ['admin_password', 'pending', true],
      ['subscription', undefined, false],
      ['subscription', null, false],
      ['subscription', 'active', true],
      ['subscription', 'ACTIVE', true],
      ['subscription', 'authorized', true],
      ['subscription', 'Authorized', true],
      ['subscription', 'paused', false],
      ['subscription', 'cancelled', false],
      ['subscription', 'pending', false],
      ['subscription', 'expired', false],
      ['subscription', '', false],
    ];

    it.each(cases)(
      'a %s company with subscription status %p has access: %p',
      (registrationType, status, expected) => {
        const company = newCompany(registrationType);
        // undefined stands for "no subscription row at all".
        expect(company.hasServiceAccess(status === undefined ? null : subscription(status))).toBe(
          expected,
        );
      },
    );
  });

  describe('applyAdminChanges', () => {
    it('changes exactly the given fields and stamps updatedAt', () => {
      const company = newCompany();
      const changes: CompanyAdminChanges = {
        isActive: false,
        registrationType: 'subscription',
        rateLimitPerMinute: 120,
        rateLimitPerHour: 5000,
        campaignCreationsPerHour: 3,
        automationLimit: 7,
        databaseLimit: 0,
        automationsEnabled: false,
        blockedContactsEnabled: false,
        pollCampaignsEnabled: false,
      };
      company.applyAdminChanges(changes, LATER);
      expect(company).toMatchObject({
        ...changes,
        name: 'Loja da Maria',
        email: 'contato@lojadamaria.com.br',
        createdAt: REGISTERED_AT,
        updatedAt: LATER,
      });
    });

    it('leaves fields that are absent or undefined alone', () => {
      const company = newCompany();
      company.applyAdminChanges({ automationLimit: 3 }, LATER);
      company.applyAdminChanges(
        { isActive: undefined, automationLimit: undefined, databaseLimit: 4 },
        LATER,
      );
      expect(company.isActive).toBe(true);
      expect(company.automationLimit).toBe(3);
      expect(company.databaseLimit).toBe(4);
      expect(company.registrationType).toBe('admin_password');
    });

    it('puts a limit back to the system default when given null', () => {
      const company = newCompany();
      company.applyAdminChanges({ rateLimitPerMinute: 5, automationLimit: 2 }, LATER);
      expect(company.effectiveLimits(SYSTEM)).toMatchObject({
        rateLimitPerMinute: 5,
        automationLimit: 2,
      });
      company.applyAdminChanges({ rateLimitPerMinute: null, automationLimit: null }, LATER);
      expect(company.rateLimitPerMinute).toBeNull();
      expect(company.automationLimit).toBeNull();
      expect(company.effectiveLimits(SYSTEM)).toEqual(SYSTEM);
    });

    it('moving a company to the subscription type takes its access away until a subscription is active', () => {
      const company = newCompany();
      company.applyAdminChanges({ registrationType: 'subscription' }, LATER);
      expect(company.hasServiceAccess(null)).toBe(false);
      expect(company.hasServiceAccess(subscription('active'))).toBe(true);
    });
  });

  describe('changeSettings', () => {
    it('changes only the two flags a company may change itself and stamps updatedAt', () => {
      const company = newCompany();
      company.changeSettings({ blockedContactsEnabled: false }, LATER);
      expect(company).toMatchObject({
        blockedContactsEnabled: false,
        pollCampaignsEnabled: true,
        automationsEnabled: true,
        updatedAt: LATER,
      });
      company.changeSettings({ pollCampaignsEnabled: false, blockedContactsEnabled: true }, LATER);
      expect(company).toMatchObject({ blockedContactsEnabled: true, pollCampaignsEnabled: false });
    });
  });

  describe('effectiveLimits', () => {
    it('uses the system defaults while the company has no overrides', () => {
      expect(newCompany().effectiveLimits(SYSTEM)).toEqual(SYSTEM);
    });

    it('prefers each override, including zero, and falls back per field', () => {
      const company = newCompany();
      company.applyAdminChanges(
        { rateLimitPerHour: 50, databaseLimit: 0, campaignCreationsPerHour: 0 },
        LATER,
      );
      expect(company.effectiveLimits(SYSTEM)).toEqual({
        rateLimitPerMinute: 60,
        rateLimitPerHour: 50,
        campaignCreationsPerHour: 0,
        automationLimit: 10,
        databaseLimit: 0,
      });
    });
  });
});
