import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { CompanySubscription } from './company-subscription.entity';
import { grantsServiceAccess, RegistrationType } from './registration-type';
import type { SendingWindow } from '../../../common/time/sending-window';
import { AutoPauseThresholds, autoPauseOf } from '../../../common/messaging/auto-pause';
import { ReachOutSettings, reachOutOf } from '../../../common/messaging/reach-out';
import type { MessagePrices } from '../../../common/messaging/message-prices';
import { Timestamped } from '../../../common/persistence/timestamped';

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
    sendingWindow: SendingWindow | null;
    autoPause: AutoPauseThresholds | null;
    reachOut: ReachOutSettings | null;
    includeReplyText: boolean;
    messagePrices: MessagePrices | null;
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
// UNIQUE (lower(email)): one company per e-mail, whatever its case; an expression index.
@Index('companies_email_lower_key', { synchronize: false })
@Check(
  'companies_registration_type_check',
  "registration_type IN ('admin_password', 'subscription')",
)
export class Company extends Timestamped implements CompanyLimitOverrides, CompanyFeatureFlags {
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
  /** The default sending window of the company's campaigns and automation runs; null: always. */
  @Column({ name: 'sending_window', type: 'jsonb', nullable: true })
  sendingWindow!: SendingWindow | null;

  /** The thresholds that pause a campaign showing ban signals; null: the defaults. */
  @Column({ name: 'auto_pause', type: 'jsonb', nullable: true })
  autoPause!: AutoPauseThresholds | null;
  /** The reach-out lock's thresholds and the warm and reply windows; null: DEFAULT_REACH_OUT. */
  @Column({ name: 'reach_out', type: 'jsonb', nullable: true })
  reachOut!: ReachOutSettings | null;
  /** The Cloud API's price per message by category (USD); null: costs are counted, not priced. */
  @Column({ name: 'message_prices', type: 'jsonb', nullable: true })
  messagePrices!: MessagePrices | null;
  /** Whether the contact.replied webhook event carries the reply's text. */
  @Column({ name: 'include_reply_text', type: 'boolean', default: false })
  includeReplyText!: boolean;
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
    company.reachOut = null;
    company.includeReplyText = false;
    company.messagePrices = null;
    company.createdAt = now;
    company.updatedAt = now;
    return company;
  }

  /** Admin-registered companies have unrestricted access; others need a live subscription. */
  hasServiceAccess(subscription: CompanySubscription | null): boolean {
    return grantsServiceAccess(this.registrationType, subscription?.subscriptionStatus ?? null);
  }

  /** An admin's PUT: each given field through the move it stands for; the others stay. */
  applyAdminChanges(changes: CompanyAdminChanges, now: Date): void {
    if (changes.isActive !== undefined) {
      this.setActive(changes.isActive);
    }
    if (changes.registrationType !== undefined) {
      this.registrationType = changes.registrationType;
    }
    this.overrideLimits(changes);
    this.switchFeatures(changes);
    this.updatedAt = now;
  }

  /** An inactive company's tokens stop working and its campaigns pause (the engine checks). */
  setActive(active: boolean): void {
    this.isActive = active;
  }

  /** Overrides the given limits; null goes back to the system default. */
  overrideLimits(limits: Partial<CompanyLimitOverrides>): void {
    this.rateLimitPerMinute = pick(limits.rateLimitPerMinute, this.rateLimitPerMinute);
    this.rateLimitPerHour = pick(limits.rateLimitPerHour, this.rateLimitPerHour);
    this.campaignCreationsPerHour = pick(
      limits.campaignCreationsPerHour,
      this.campaignCreationsPerHour,
    );
    this.automationLimit = pick(limits.automationLimit, this.automationLimit);
    this.databaseLimit = pick(limits.databaseLimit, this.databaseLimit);
  }

  /** Turns the given features on or off. */
  switchFeatures(features: Partial<CompanyFeatureFlags>): void {
    this.automationsEnabled = pick(features.automationsEnabled, this.automationsEnabled);
    this.blockedContactsEnabled = pick(
      features.blockedContactsEnabled,
      this.blockedContactsEnabled,
    );
    this.pollCampaignsEnabled = pick(features.pollCampaignsEnabled, this.pollCampaignsEnabled);
  }

  changeSettings(changes: CompanySettingsChanges, now: Date): void {
    this.switchFeatures({
      blockedContactsEnabled: changes.blockedContactsEnabled,
      pollCampaignsEnabled: changes.pollCampaignsEnabled,
    });
    if (changes.optOutWords !== undefined) {
      this.optOutWords = changes.optOutWords;
    }
    if (changes.optOutConfirmation !== undefined) {
      this.optOutConfirmation = changes.optOutConfirmation?.trim() || null;
    }
    if (changes.sendingWindow !== undefined) {
      this.sendingWindow = changes.sendingWindow;
    }
    if (changes.autoPause !== undefined) {
      this.autoPause = changes.autoPause && { ...changes.autoPause };
    }
    if (changes.reachOut !== undefined) {
      this.reachOut = changes.reachOut && { ...changes.reachOut };
    }
    this.includeReplyText = pick(changes.includeReplyText, this.includeReplyText);
    if (changes.messagePrices !== undefined) {
      this.messagePrices = changes.messagePrices && { ...changes.messagePrices };
    }
    this.updatedAt = now;
  }

  get effectiveAutoPause(): AutoPauseThresholds {
    return autoPauseOf(this.autoPause);
  }

  get effectiveReachOut(): ReachOutSettings {
    return reachOutOf(this.reachOut);
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

/** The given value, or the current one when the change left the field out. */
function pick<T>(given: T | undefined, current: T): T {
  return given === undefined ? current : given;
}
