import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { CompanySubscription } from './company-subscription.entity';
import { grantsServiceAccess, RegistrationType } from './registration-type';

/** Per-company overrides; null means "the system default from the environment". */
export interface CompanyLimitOverrides {
  rateLimitPerMinute: number | null;
  rateLimitPerHour: number | null;
  campaignCreationsPerHour: number | null;
  automationLimit: number | null;
  databaseLimit: number | null;
}

export interface CompanyFeatureFlags {
  automationsEnabled: boolean;
  blockedContactsEnabled: boolean;
  pollCampaignsEnabled: boolean;
}

export interface SystemLimits {
  rateLimitPerMinute: number;
  rateLimitPerHour: number;
  campaignCreationsPerHour: number;
  automationLimit: number;
  databaseLimit: number;
}

export type CompanyAdminChanges = Partial<
  CompanyLimitOverrides &
    CompanyFeatureFlags & { isActive: boolean; registrationType: RegistrationType }
>;

export type CompanySettingsChanges = Partial<
  Pick<CompanyFeatureFlags, 'blockedContactsEnabled' | 'pollCampaignsEnabled'> & {
    optOutWords: string[] | null;
    optOutConfirmation: string | null;
  }
>;

/** Replies that block a number (compared trimmed, without case or accents). */
export const DEFAULT_OPT_OUT_WORDS: readonly string[] = [
  'SAIR',
  'PARAR',
  'STOP',
  'CANCELAR',
  'DESCADASTRAR',
];

@Entity({ name: 'companies' })
export class Company implements CompanyLimitOverrides, CompanyFeatureFlags {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name!: string;
  @Column({ name: 'email', type: 'varchar', length: 100 }) email!: string;
  @Column({ name: 'password_hash', type: 'varchar', length: 100 }) passwordHash!: string;
  @Column({ name: 'registration_type', type: 'varchar', length: 30 })
  registrationType!: RegistrationType;
  @Column({ name: 'is_active', type: 'boolean', default: true }) isActive!: boolean;
  @Column({ name: 'blocked_contacts_enabled', type: 'boolean', default: true })
  blockedContactsEnabled!: boolean;
  @Column({ name: 'poll_campaigns_enabled', type: 'boolean', default: true })
  pollCampaignsEnabled!: boolean;
  @Column({ name: 'automations_enabled', type: 'boolean', default: true })
  automationsEnabled!: boolean;
  /** Replies that opt a number out; null: DEFAULT_OPT_OUT_WORDS. */
  @Column({ name: 'opt_out_words', type: 'text', array: true, nullable: true })
  optOutWords!: string[] | null;
  /** Sent once, through the same instance, to a number that opted out; null: none. */
  @Column({ name: 'opt_out_confirmation', type: 'text', nullable: true })
  optOutConfirmation!: string | null;
  @Column({ name: 'rate_limit_per_minute', type: 'integer', nullable: true }) rateLimitPerMinute!:
    number | null;
  @Column({ name: 'rate_limit_per_hour', type: 'integer', nullable: true }) rateLimitPerHour!:
    number | null;
  @Column({ name: 'campaign_creations_per_hour', type: 'integer', nullable: true })
  campaignCreationsPerHour!: number | null;
  @Column({ name: 'automation_limit', type: 'integer', nullable: true }) automationLimit!:
    number | null;
  @Column({ name: 'database_limit', type: 'integer', nullable: true }) databaseLimit!:
    number | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;

  static register(
    props: {
      name: string;
      email: string;
      passwordHash: string;
      registrationType: RegistrationType;
    },
    now: Date,
  ): Company {
    const company = new Company();
    company.name = props.name;
    company.email = props.email;
    company.passwordHash = props.passwordHash;
    company.registrationType = props.registrationType;
    company.isActive = true;
    company.blockedContactsEnabled = true;
    company.pollCampaignsEnabled = true;
    company.automationsEnabled = true;
    company.rateLimitPerMinute = null;
    company.rateLimitPerHour = null;
    company.campaignCreationsPerHour = null;
    company.automationLimit = null;
    company.databaseLimit = null;
    company.createdAt = now;
    company.updatedAt = now;
    return company;
  }

  /** Admin-registered companies have unrestricted access; others need a live subscription. */
  hasServiceAccess(subscription: CompanySubscription | null): boolean {
    return grantsServiceAccess(this.registrationType, subscription?.subscriptionStatus ?? null);
  }

  applyAdminChanges(changes: CompanyAdminChanges, now: Date): void {
    for (const [key, value] of Object.entries(changes)) {
      if (value !== undefined) {
        (this as unknown as Record<string, unknown>)[key] = value;
      }
    }
    this.updatedAt = now;
  }

  changeSettings(changes: CompanySettingsChanges, now: Date): void {
    if (changes.blockedContactsEnabled !== undefined) {
      this.blockedContactsEnabled = changes.blockedContactsEnabled;
    }
    if (changes.pollCampaignsEnabled !== undefined) {
      this.pollCampaignsEnabled = changes.pollCampaignsEnabled;
    }
    if (changes.optOutWords !== undefined) {
      this.optOutWords = changes.optOutWords;
    }
    if (changes.optOutConfirmation !== undefined) {
      this.optOutConfirmation = changes.optOutConfirmation?.trim() || null;
    }
    this.updatedAt = now;
  }

  /** The words whose reply opts a number out. */
  get effectiveOptOutWords(): readonly string[] {
    return this.optOutWords ?? DEFAULT_OPT_OUT_WORDS;
  }

  effectiveLimits(system: SystemLimits): SystemLimits {
    return {
      rateLimitPerMinute: this.rateLimitPerMinute ?? system.rateLimitPerMinute,
      rateLimitPerHour: this.rateLimitPerHour ?? system.rateLimitPerHour,
      campaignCreationsPerHour: this.campaignCreationsPerHour ?? system.campaignCreationsPerHour,
      automationLimit: this.automationLimit ?? system.automationLimit,
      databaseLimit: this.databaseLimit ?? system.databaseLimit,
    };
  }
}
