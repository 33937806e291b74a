import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../../../common/persistence/timestamped';
import {
  reachOutLockOf,
  type ReachOutCause,
  type ReachOutLock,
  type ReachOutScope,
} from './reach-out-lock';

/** The two kinds of gateway a configuration may name. */
export const GATEWAY_PROVIDERS = ['EVOLUTION', 'CLOUD_API'] as const;
export type GatewayProvider = (typeof GATEWAY_PROVIDERS)[number];

export interface GatewayConfigFields {
  name: string;
  url: string;
  /** SecretBox text; the plain key exists only in memory, on the way to the gateway. */
  apiKeyEncrypted: string;
  instance: string;
}

/** A Cloud API configuration's own fields, its secrets sealed (gateway-config-keys.ts). */
export interface CloudApiFields {
  name: string;
  /** The Graph API's base URL. */
  url: string;
  accessTokenEncrypted: string;
  phoneNumberId: string;
  businessAccountId: string;
  apiVersion: string;
  appSecretEncrypted: string;
  throughputPerSecond: number | null;
}

/** What Meta says of the number: read at creation and on each check, or reported by webhook. */
export interface CloudApiNumberFacts {
  displayPhoneNumber: string | null;
  verifiedName: string | null;
  qualityRating: string | null;
  messagingLimitTier: string | null;
}

/**
 * How much the instance may send in a local day (APP_TIMEZONE): at most `dailyLimit`, and
 * while it warms up, `warmupStartPerDay` on the day of its first send, growing by
 * `warmupGrowthPercent` each day after. Null: no such limit.
 */
export interface InstanceLimits {
  dailyLimit: number | null;
  warmupStartPerDay: number | null;
  warmupGrowthPercent: number | null;
}

export const DEFAULT_WARMUP_GROWTH_PERCENT = 20;

/** Why an event carrying the right secret was refused: the other fields named someone else. */
export const EVENTS_REFUSALS = ['INSTANCE_MISMATCH', 'APIKEY_MISMATCH'] as const;
export type EventsRefusal = (typeof EVENTS_REFUSALS)[number];

/** What the service's webhook on the instance is known by, kept as one unit. */
export interface TrackingState {
  trackDelivery: boolean;
  eventsSecretHash: string | null;
  instanceTokenEncrypted: string | null;
}

/** A saved gateway instance that campaigns, automations and gateway sync refer to by id. */
@Entity({ name: 'gateway_configs' })
@Index('gateway_configs_company_id_id_idx', ['companyId', 'id'])
@Check('gateway_configs_daily_limit_check', 'daily_limit > 0')
@Check('gateway_configs_warmup_check', 'warmup_start_per_day > 0 AND warmup_growth_percent >= 0')
@Check('gateway_configs_reachout_lock_scope_check', "reachout_lock_scope IN ('COLD', 'ALL')")
@Check(
  'gateway_configs_reachout_lock_until_check',
  '(reachout_lock_scope IS NULL) = (reachout_locked_until IS NULL)',
)
@Index('gateway_configs_reachout_locked_idx', { synchronize: false })
@Check('gateway_configs_provider_check', "provider IN ('EVOLUTION', 'CLOUD_API')")
@Check(
  'gateway_configs_cloud_api_check',
  "provider = 'EVOLUTION' OR (business_account_id IS NOT NULL AND api_version IS NOT NULL AND app_secret_encrypted IS NOT NULL AND webhook_verify_token IS NOT NULL)",
)
@Check('gateway_configs_throughput_check', 'throughput_per_second > 0')
@Index('gateway_configs_cloud_number_idx', { synchronize: false })
export class GatewayConfig extends Timestamped implements GatewayConfigFields, InstanceLimits {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'gateway_configs_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name!: string;
  @Column({ name: 'url', type: 'varchar', length: 500 }) url!: string;
  @Column({ name: 'api_key_encrypted', type: 'text' }) apiKeyEncrypted!: string;
  @Column({ name: 'instance', type: 'varchar', length: 100 }) instance!: string;
  /** The service registered its own webhook on the instance to hear receipts and replies. */
  @Column({ name: 'track_delivery', type: 'boolean', default: false }) trackDelivery!: boolean;
  /** SHA-256 (hex) of the secret header the gateway sends with each event; null when not tracking. */
  @Column({ name: 'events_secret_hash', type: 'varchar', length: 64, nullable: true })
  eventsSecretHash!: string | null;
  /**
   * The instance's own token (SecretBox text), learned from the gateway when tracking starts:
   * Evolution puts it in every event's `apikey`, whatever key the configuration holds.
   */
  @Column({ name: 'instance_token_encrypted', type: 'text', nullable: true })
  instanceTokenEncrypted!: string | null;
  /** When an event with the right secret was last refused (its instance or apikey did not match). */
  @Column({ name: 'events_refused_at', type: 'timestamptz', nullable: true })
  eventsRefusedAt!: Date | null;
  @Column({ name: 'events_refused_reason', type: 'varchar', length: 20, nullable: true })
  eventsRefusedReason!: EventsRefusal | null;
  /** The instance's state as its last connection.update event said (open, close, …). */
  @Column({ name: 'instance_state', type: 'varchar', length: 20, nullable: true })
  instanceState!: string | null;
  @Column({ name: 'daily_limit', type: 'integer', nullable: true }) dailyLimit!: number | null;
  @Column({ name: 'warmup_start_per_day', type: 'integer', nullable: true })
  warmupStartPerDay!: number | null;
  @Column({ name: 'warmup_growth_percent', type: 'integer', nullable: true })
  warmupGrowthPercent!: number | null;
  @Column({ name: 'instance_state_reason', type: 'integer', nullable: true })
  instanceStateReason!: number | null;
  @Column({ name: 'instance_state_at', type: 'timestamptz', nullable: true })
  instanceStateAt!: Date | null;
  /** The reach-out lock in force (reach-out-lock.ts); null scope: none. */
  @Column({ name: 'reachout_lock_scope', type: 'varchar', length: 4, nullable: true })
  reachOutLockScope!: ReachOutScope | null;
  @Column({ name: 'reachout_lock_cause', type: 'varchar', length: 20, nullable: true })
  reachOutLockCause!: ReachOutCause | null;
  /** When the last lock began and how long it was set for: kept after it ends, to double the next. */
  @Column({ name: 'reachout_locked_at', type: 'timestamptz', nullable: true })
  reachOutLockedAt!: Date | null;
  @Column({ name: 'reachout_locked_until', type: 'timestamptz', nullable: true })
  reachOutLockedUntil!: Date | null;
  @Column({ name: 'reachout_lock_seconds', type: 'integer', nullable: true })
  reachOutLockSeconds!: number | null;
  /**
   * EVOLUTION or CLOUD_API. A Cloud API configuration reads the common columns its own way:
   * `url` is the Graph API's base, `instance` the phone number id, `apiKeyEncrypted` the
   * access token.
   */
  @Column({ name: 'provider', type: 'varchar', length: 12, default: 'EVOLUTION' })
  provider!: GatewayProvider;
  /** Cloud API: the WhatsApp Business Account that holds the number and its templates. */
  @Column({ name: 'business_account_id', type: 'varchar', length: 64, nullable: true })
  businessAccountId!: string | null;
  /** Cloud API: the Graph API version called, e.g. v23.0. */
  @Column({ name: 'api_version', type: 'varchar', length: 10, nullable: true })
  apiVersion!: string | null;
  /** Cloud API: the app secret that signs Meta's webhooks (SecretBox text). */
  @Column({ name: 'app_secret_encrypted', type: 'text', nullable: true })
  appSecretEncrypted!: string | null;
  /** Cloud API: what Meta's webhook verification must echo (`hub.verify_token`). */
  @Column({ name: 'webhook_verify_token', type: 'varchar', length: 64, nullable: true })
  webhookVerifyToken!: string | null;
  /** Cloud API: what Meta says of the number, as last read or reported. */
  @Column({ name: 'display_phone_number', type: 'varchar', length: 32, nullable: true })
  displayPhoneNumber!: string | null;
  @Column({ name: 'verified_name', type: 'varchar', length: 200, nullable: true })
  verifiedName!: string | null;
  @Column({ name: 'quality_rating', type: 'varchar', length: 10, nullable: true })
  qualityRating!: string | null;
  @Column({ name: 'messaging_limit_tier', type: 'varchar', length: 30, nullable: true })
  messagingLimitTier!: string | null;
  @Column({ name: 'number_checked_at', type: 'timestamptz', nullable: true })
  numberCheckedAt!: Date | null;
  /** Cloud API: messages a second the number may send; null: the service's default. */
  @Column({ name: 'throughput_per_second', type: 'integer', nullable: true })
  throughputPerSecond!: number | null;

  static create(companyId: number, fields: GatewayConfigFields, now: Date): GatewayConfig {
    const config = new GatewayConfig();
    config.companyId = companyId;
    config.name = fields.name;
    config.url = fields.url;
    config.apiKeyEncrypted = fields.apiKeyEncrypted;
    config.instance = fields.instance;
    config.trackDelivery = false;
    config.eventsSecretHash = null;
    config.instanceTokenEncrypted = null;
    config.eventsRefusedAt = null;
    config.eventsRefusedReason = null;
    config.instanceState = null;
    config.instanceStateReason = null;
    config.instanceStateAt = null;
    config.dailyLimit = null;
    config.warmupStartPerDay = null;
    config.warmupGrowthPercent = null;
    config.reachOutLockScope = null;
    config.reachOutLockCause = null;
    config.reachOutLockedAt = null;
    config.reachOutLockedUntil = null;
    config.reachOutLockSeconds = null;
    config.provider = 'EVOLUTION';
    config.businessAccountId = null;
    config.apiVersion = null;
    config.appSecretEncrypted = null;
    config.webhookVerifyToken = null;
    config.displayPhoneNumber = null;
    config.verifiedName = null;
    config.qualityRating = null;
    config.messagingLimitTier = null;
    config.numberCheckedAt = null;
    config.throughputPerSecond = null;
    config.createdAt = now;
    config.updatedAt = now;
    return config;
  }

  /**
   * A number of Meta's Cloud API. The common columns keep their meaning for the engine: the
   * phone number id is the instance, the access token the key. `webhookVerifyToken` is what
   * the person pastes in Meta's dashboard beside the webhook URL.
   */
  static createCloudApi(
    companyId: number,
    fields: CloudApiFields,
    webhookVerifyToken: string,
    now: Date,
  ): GatewayConfig {
    const config = GatewayConfig.create(
      companyId,
      {
        name: fields.name,
        url: fields.url,
        apiKeyEncrypted: fields.accessTokenEncrypted,
        instance: fields.phoneNumberId,
      },
      now,
    );
    config.provider = 'CLOUD_API';
    config.webhookVerifyToken = webhookVerifyToken;
    config.changeCloudApi(fields, now);
    return config;
  }

  /** Applies the Cloud API fields given; updatedAt moves only when something changed. */
  changeCloudApi(changes: Partial<CloudApiFields>, now: Date): void {
    this.change(
      {
        name: changes.name,
        url: changes.url,
        apiKeyEncrypted: changes.accessTokenEncrypted,
        instance: changes.phoneNumberId,
      },
      now,
    );
    const own = {
      businessAccountId: changes.businessAccountId,
      apiVersion: changes.apiVersion,
      appSecretEncrypted: changes.appSecretEncrypted,
      throughputPerSecond: changes.throughputPerSecond,
    };
    for (const [field, value] of Object.entries(own) as Array<[keyof typeof own, never]>) {
      if (value !== undefined && value !== this[field]) {
        this[field] = value;
        this.updatedAt = now;
      }
    }
  }

  /** What Meta said of the number just now. */
  numberChecked(facts: CloudApiNumberFacts, now: Date): void {
    this.displayPhoneNumber = facts.displayPhoneNumber;
    this.verifiedName = facts.verifiedName;
    this.qualityRating = facts.qualityRating;
    this.messagingLimitTier = facts.messagingLimitTier;
    this.numberCheckedAt = now;
  }

  /** The reach-out lock in force; null when there is none (a lifted or ended one is gone). */
  get reachOutLock(): ReachOutLock | null {
    return reachOutLockOf({
      scope: this.reachOutLockScope,
      cause: this.reachOutLockCause,
      lockedAt: this.reachOutLockedAt,
      lockedUntil: this.reachOutLockedUntil,
      seconds: this.reachOutLockSeconds,
    }).current;
  }

  /**
   * Our webhook is (being) registered on the instance with a new secret, known here by its
   * hash, and the instance's token when the gateway told it; earlier refusals are forgotten.
   */
  startTracking(secretHash: string, instanceTokenEncrypted: string | null, now: Date): void {
    this.restoreTracking({
      trackDelivery: true,
      eventsSecretHash: secretHash,
      instanceTokenEncrypted,
    });
    this.eventsRefusedAt = null;
    this.eventsRefusedReason = null;
    this.updatedAt = now;
  }

  /** Our webhook is gone from the instance: events for this configuration are refused. */
  stopTracking(now: Date): void {
    if (this.trackDelivery || this.eventsSecretHash) {
      this.restoreTracking({
        trackDelivery: false,
        eventsSecretHash: null,
        instanceTokenEncrypted: null,
      });
      this.updatedAt = now;
    }
  }

  get tracking(): TrackingState {
    return {
      trackDelivery: this.trackDelivery,
      eventsSecretHash: this.eventsSecretHash,
      instanceTokenEncrypted: this.instanceTokenEncrypted,
    };
  }

  /** Back to a state read earlier, when the gateway refused the registration that followed it. */
  restoreTracking(state: TrackingState): void {
    this.trackDelivery = state.trackDelivery;
    this.eventsSecretHash = state.eventsSecretHash;
    this.instanceTokenEncrypted = state.instanceTokenEncrypted;
  }

  /** Sets the limits given (null clears one); a warm-up without its growth grows 20 % a day. */
  limitSending(limits: Partial<InstanceLimits>, now: Date): void {
    if (limits.dailyLimit !== undefined) {
      this.dailyLimit = limits.dailyLimit;
    }
    if (limits.warmupStartPerDay !== undefined) {
      this.warmupStartPerDay = limits.warmupStartPerDay;
    }
    if (limits.warmupGrowthPercent !== undefined) {
      this.warmupGrowthPercent = limits.warmupGrowthPercent;
    }
    if (this.warmupStartPerDay === null) {
      this.warmupGrowthPercent = null;
    } else {
      this.warmupGrowthPercent ??= DEFAULT_WARMUP_GROWTH_PERCENT;
    }
    this.updatedAt = now;
  }

  /** Applies the given fields; updatedAt moves only when something actually changed. */
  change(changes: Partial<GatewayConfigFields>, now: Date): void {
    let changed = false;
    for (const field of ['name', 'url', 'apiKeyEncrypted', 'instance'] as const) {
      const value = changes[field];
      if (value !== undefined && value !== this[field]) {
        this[field] = value;
        changed = true;
      }
    }
    if (changed) {
      this.updatedAt = now;
    }
  }
}
