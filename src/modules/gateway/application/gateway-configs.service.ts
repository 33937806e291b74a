import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { secretsEqual } from '../../../common/crypto/hashing';
import { SecretBox, SecretBoxError } from '../../../common/crypto/secret-box';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { OutboundTargetGuard } from '../../../common/outbound/outbound-target.guard';
import { OutboundError } from '../../../common/outbound/outbound.errors';
import { Clock } from '../../../common/time/clock';
import {
  EventsRefusal,
  GatewayConfig,
  GatewayConfigFields,
  InstanceLimits,
} from '../domain/gateway-config.entity';
import { InstancePacing, InstanceUsage } from './ports/instance-pacing';
import {
  GatewayConfigInUseError,
  GatewayConfigKeyUnreadableError,
  gatewayFailure,
} from '../domain/gateway-config.errors';
import {
  GatewayError,
  GatewayTarget,
  InstanceConnectionState,
  MessagingGateway,
} from '../domain/messaging-gateway';
import { GatewayConfigsRepository } from './ports/gateway-configs.repository';
import {
  DeliveryTrackingRegistrar,
  instanceTokenContext,
  secretHash,
} from './delivery-tracking.registrar';
import { ActiveSenders, GatewayConfigUsageRegistry } from './gateway-config-usage.registry';

export interface GatewayConfigInput {
  name: string;
  url: string;
  apiKey: string;
  instance: string;
}

/** Delivery tracking, on create and update: register (or remove) our webhook on the instance. */
export interface TrackingInput {
  trackDelivery?: boolean;
  /** Replace a webhook the instance already sends elsewhere. */
  replaceGatewayWebhook?: boolean;
}

/** What an inbound gateway event is checked against, and whose it is. */
export interface EventsSource {
  gatewayConfigId: number;
  companyId: number;
  instance: string;
  /** What an event's `apikey` may be: the configuration's key, and the instance's own token. */
  apiKeys: string[];
}

/** What other modules may show or store about a configuration (docs/API-RULES.md §3). */
export interface GatewayConfigSummary {
  id: number;
  name: string;
  url: string;
  instance: string;
}

export interface ResolvedGatewayConfig {
  config: GatewayConfigSummary;
  target: GatewayTarget;
}

export interface GatewayInstanceStatus {
  instance: string;
  state: InstanceConnectionState;
  checkedAt: Date;
}

const URL_REFUSALS: Partial<Record<OutboundError['kind'], string>> = {
  invalid_url: 'deve ser uma URL http:// ou https:// válida, sem usuário e senha',
  target_refused: 'aponta para um endereço de rede não permitido',
  unresolvable: 'tem um host que não foi encontrado (DNS)',
};

function limitsOf(input: Partial<InstanceLimits>): Partial<InstanceLimits> {
  return {
    dailyLimit: input.dailyLimit,
    warmupStartPerDay: input.warmupStartPerDay,
    warmupGrowthPercent: input.warmupGrowthPercent,
  };
}

/**
 * How long an events source stays cached. Every change to a configuration drops it at once on
 * every instance (GatewayConfigsRepository.watchChanges), and a reconnected listener drops them
 * all; this bounds what is left, e.g. a notification lost before the loss was noticed.
 */
const EVENTS_SOURCE_TTL_MS = 30_000;
/**
 * Ids no configuration has, remembered apart (and fewer) so that a stranger's guesses cannot
 * push the real configurations out of the cache.
 */
const MISSING_CONFIGS_MAX = 1_000;
/** A configuration's refused events are written down at most this often. */
const REFUSAL_RECORD_INTERVAL_MS = 10_000;
/** After a token was learned, another unknown apikey does not make the gateway be asked for this long. */
const TOKEN_LEARNED_INTERVAL_MS = 5 * 60_000;
/**
 * After a lookup that learned nothing (the gateway unreachable, or another token), the next one
 * waits this long: short, since Evolution does not retry the events refused meanwhile.
 */
const TOKEN_RETRY_MS = 10_000;

interface KnownSource {
  hash: Buffer;
  source: EventsSource;
}

@Injectable()
export class GatewayConfigsService implements OnApplicationBootstrap {
  constructor(
    private readonly configs: GatewayConfigsRepository,
    private readonly secrets: SecretBox,
    private readonly targets: OutboundTargetGuard,
    private readonly gateway: MessagingGateway,
    private readonly usage: GatewayConfigUsageRegistry,
    private readonly tracking: DeliveryTrackingRegistrar,
    private readonly clock: Clock,
    private readonly pacing: InstancePacing,
  ) {}

  private readonly eventsSources = new ExpiringMap<number, KnownSource | null>(
    EVENTS_SOURCE_TTL_MS,
    10_000,
  );
  private readonly missingConfigs = new ExpiringMap<number, true>(
    EVENTS_SOURCE_TTL_MS,
    MISSING_CONFIGS_MAX,
  );
  /**
   * The ids of every configuration that tracks delivery, loaded at start and kept by the change
   * notifications: an address past its budget may still reach these (and nothing else costs it a
   * query), whichever company's and however long idle.
   */
  private readonly trackingConfigs = new Set<number>();
  /** One lookup per configuration at a time: a burst of events waits for the same answer. */
  private readonly eventsSourceLookups = new Map<number, Promise<KnownSource | null>>();
  /** Moves on every change heard of: a lookup that started before one does not cache its answer. */
  private eventsSourcesGeneration = 0;
  private readonly recentRefusals = new ExpiringMap<number, true>(
    REFUSAL_RECORD_INTERVAL_MS,
    10_000,
  );
  /** Per configuration: until when (epoch ms) an unknown apikey is refused without asking. */
  private readonly tokenLookupPause = new ExpiringMap<number, number>(
    TOKEN_LEARNED_INTERVAL_MS,
    10_000,
  );
  /** The lookup under way per configuration: concurrent events wait for its answer. */
  private readonly tokenLookups = new Map<number, { apikey: string; learned: Promise<boolean> }>();

  async onApplicationBootstrap(): Promise<void> {
    await this.configs.watchChanges((id) => {
      this.forgetEventsSource(id);
      void this.refreshTrackingConfigs(id);
    });
    await this.refreshTrackingConfigs(null);
  }

  /** Reads again whether `id` tracks delivery (null: every configuration, after a lost notice). */
  private async refreshTrackingConfigs(id: number | null): Promise<void> {
    try {
      const tracking = await this.configs.trackingIds(id === null ? undefined : [id]);
      if (id === null) {
        this.trackingConfigs.clear();
        tracking.forEach((trackingId) => this.trackingConfigs.add(trackingId));
      } else if (tracking.includes(id)) {
        this.trackingConfigs.add(id);
      } else {
        this.trackingConfigs.delete(id);
      }
    } catch {
      // Unknown: let the id be looked up (a query) rather than refuse its events.
      if (id !== null) {
        this.trackingConfigs.add(id);
      }
    }
  }

  async create(
    companyId: number,
    input: GatewayConfigInput & TrackingInput & Partial<InstanceLimits>,
  ): Promise<GatewayConfig> {
    await this.assertCallable(input.url);
    const now = this.clock.now();
    const created = GatewayConfig.create(companyId, this.fieldsOf(companyId, input), now);
    created.limitSending(limitsOf(input), now);
    const config = await this.configs.save(created);
    if (input.trackDelivery) {
      // The events URL names the configuration, so it exists first; a refused registration
      // leaves nothing behind.
      try {
        await this.tracking.register(config, this.targetOf(config), !!input.replaceGatewayWebhook);
      } catch (error) {
        await this.configs.delete(companyId, config.id);
        throw error;
      }
      return this.configs.save(config);
    }
    return config;
  }

  /** What the instance sent today, what it may send, and who sends through it. */
  async instanceUsage(
    companyId: number,
    id: number,
  ): Promise<InstanceUsage & { activeSenders: ActiveSenders }> {
    await this.configs.findOwnedOrFail(companyId, id);
    const [usage, activeSenders] = await Promise.all([
      this.pacing.usage(id),
      this.usage.activeSenders(companyId, id),
    ]);
    return { ...usage, activeSenders };
  }

  list(companyId: number): Promise<GatewayConfig[]> {
    return this.configs.listNewestFirst(companyId);
  }

  get(companyId: number, id: number): Promise<GatewayConfig> {
    return this.configs.findOwnedOrFail(companyId, id);
  }

  async update(
    companyId: number,
    id: number,
    changes: Partial<GatewayConfigInput> & TrackingInput & Partial<InstanceLimits>,
  ): Promise<GatewayConfig> {
    const config = await this.configs.findOwnedOrFail(companyId, id);
    if (changes.url !== undefined) {
      await this.assertCallable(changes.url);
    }
    const before = { url: config.url, instance: config.instance, key: config.apiKeyEncrypted };
    config.change(this.fieldsOf(companyId, changes), this.clock.now());
    const limits = limitsOf(changes);
    if (Object.values(limits).some((value) => value !== undefined)) {
      config.limitSending(limits, this.clock.now());
    }
    const moved =
      before.url !== config.url ||
      before.instance !== config.instance ||
      before.key !== config.apiKeyEncrypted;
    const track = changes.trackDelivery ?? config.trackDelivery;
    if (track && (changes.trackDelivery === true || moved)) {
      await this.tracking.register(config, this.targetOf(config), !!changes.replaceGatewayWebhook);
    } else if (!track && config.trackDelivery) {
      await this.tracking.unregister(config, this.targetOf(config));
    }
    return this.configs.save(config);
  }

  /**
   * The configuration an inbound event names, when it tracks delivery and the event carries
   * its secret (compared in constant time); null otherwise, a deleted configuration included.
   * Cached: events come in bursts of thousands. `onlyTracking` (for an address past its
   * budget): null without a query unless the id is one of a configuration that tracks delivery,
   * so guessed ids cost nothing while every company's gateway events keep flowing.
   */
  async eventsSource(
    configId: number,
    secret: string,
    onlyTracking = false,
  ): Promise<EventsSource | null> {
    const known = await this.knownSource(configId, onlyTracking);
    if (!known) {
      return null;
    }
    const presented = Buffer.from(secretHash(secret), 'hex');
    return timingSafeEqual(presented, known.hash) ? known.source : null;
  }

  private knownSource(
    configId: number,
    onlyTracking: boolean,
  ): KnownSource | null | Promise<KnownSource | null> {
    const cached = this.eventsSources.get(configId);
    if (cached) {
      return cached.value;
    }
    if (
      this.missingConfigs.get(configId) ||
      (onlyTracking && !this.trackingConfigs.has(configId))
    ) {
      return null;
    }
    let lookup = this.eventsSourceLookups.get(configId);
    if (!lookup) {
      const started = this.loadEventsSource(configId).finally(() => {
        if (this.eventsSourceLookups.get(configId) === started) {
          this.eventsSourceLookups.delete(configId);
        }
      });
      lookup = started;
      this.eventsSourceLookups.set(configId, lookup);
    }
    return lookup;
  }

  /**
   * Shows on the configuration that an event carrying its secret was refused (written at most
   * once per REFUSAL_RECORD_INTERVAL_MS: a gateway may send thousands a minute).
   */
  async recordEventsRefused(configId: number, reason: EventsRefusal): Promise<void> {
    if (this.recentRefusals.get(configId)) {
      return;
    }
    this.recentRefusals.set(configId, true);
    await this.configs.recordEventsRefused(configId, reason, this.clock.now());
  }

  /**
   * For an event with the right secret whose apikey is not known: asks the gateway whether it
   * is the instance's current token, and records it when it is. Events that arrive while it
   * asks wait for the same answer; after it, another unknown apikey is refused without asking
   * for TOKEN_LEARNED_INTERVAL_MS (learned) or TOKEN_RETRY_MS (not). True: the apikey is the
   * instance's token.
   */
  async learnInstanceToken(configId: number, apikey: string): Promise<boolean> {
    const asking = this.tokenLookups.get(configId);
    if (asking) {
      return (await asking.learned) && secretsEqual(asking.apikey, apikey);
    }
    if ((this.tokenLookupPause.get(configId)?.value ?? 0) > Date.now()) {
      return false;
    }
    const lookup = { apikey, learned: this.askInstanceToken(configId, apikey) };
    this.tokenLookups.set(configId, lookup);
    const learned = await lookup.learned;
    this.tokenLookups.delete(configId);
    const pause = learned ? TOKEN_LEARNED_INTERVAL_MS : TOKEN_RETRY_MS;
    this.tokenLookupPause.set(configId, Date.now() + pause);
    return learned;
  }

  private async askInstanceToken(configId: number, apikey: string): Promise<boolean> {
    try {
      const config = await this.configs.findById(configId);
      return (
        !!config?.trackDelivery &&
        (await this.tracking.learnInstanceToken(config, this.targetOf(config), apikey))
      );
    } catch {
      return false;
    }
  }

  private async loadEventsSource(configId: number): Promise<KnownSource | null> {
    const generation = this.eventsSourcesGeneration;
    const config = await this.configs.findById(configId);
    const value =
      config?.trackDelivery && config.eventsSecretHash
        ? {
            hash: Buffer.from(config.eventsSecretHash, 'hex'),
            source: {
              gatewayConfigId: config.id,
              companyId: config.companyId,
              instance: config.instance,
              apiKeys: this.eventKeysOf(config),
            },
          }
        : null;
    if (generation === this.eventsSourcesGeneration) {
      if (config) {
        this.eventsSources.set(configId, value);
      } else {
        this.missingConfigs.set(configId, true);
      }
    }
    return value;
  }

  /**
   * The keys an event's apikey may be, those that still open (ENCRYPTION_KEY unchanged): the
   * secret header alone authenticates the event, so an unreadable key refuses only the events
   * that carry it, and that shows on the configuration.
   */
  private eventKeysOf(config: GatewayConfig): string[] {
    const sealed: Array<[string | null, string]> = [
      [config.apiKeyEncrypted, keyContext(config.companyId)],
      [config.instanceTokenEncrypted, instanceTokenContext(config.companyId)],
    ];
    return sealed.flatMap(([value, context]) => {
      try {
        return value ? [this.secrets.decrypt(value, context)] : [];
      } catch (error) {
        if (error instanceof SecretBoxError) {
          return [];
        }
        throw error;
      }
    });
  }

  /** One configuration, or all of them (null: changes may have been missed). */
  private forgetEventsSource(configId: number | null): void {
    this.eventsSourcesGeneration += 1;
    if (configId === null) {
      this.eventsSources.deleteWhere(() => true);
      this.missingConfigs.deleteWhere(() => true);
      this.eventsSourceLookups.clear();
      return;
    }
    this.eventsSources.delete(configId);
    this.missingConfigs.delete(configId);
    this.eventsSourceLookups.delete(configId);
  }

  /**
   * Records the instance's state: what a connection.update said, what a connection check read,
   * or what a send proved (`not_paired`: never paired, its QR code must be read; it stays until
   * the instance is seen `open`). False when a later one was already recorded (events may come
   * in any order), and then it changes nothing.
   */
  recordInstanceState(
    configId: number,
    state: string,
    reason: number | null,
    at: Date,
  ): Promise<boolean> {
    return this.configs.recordInstanceState(configId, state, reason, at);
  }

  private targetOf(config: GatewayConfig): GatewayTarget {
    return { url: config.url, apiKey: this.openKey(config), instance: config.instance };
  }

  /**
   * Refused while any registered module still uses it. A use that starts between this
   * check and the delete is that module's to guard; a foreign key that still points at the
   * row refuses the delete the same way instead of failing with a 500.
   */
  async delete(companyId: number, id: number): Promise<void> {
    const config = await this.configs.findOwnedOrFail(companyId, id);
    const reasons = await this.usage.reasonsInUse(companyId, id);
    if (reasons.length > 0) {
      throw new GatewayConfigInUseError(reasons);
    }
    if (config.trackDelivery) {
      // Best effort: the configuration goes either way, and its events are refused once it has.
      await this.tracking.unregister(config, this.targetOf(config)).catch(() => undefined);
    }
    if ((await this.configs.delete(companyId, id)) === 'referenced') {
      throw new GatewayConfigInUseError([
        'ainda referenciada por outros registros (por exemplo, campanhas)',
      ]);
    }
  }

  /** Asks the gateway on every call; gateway failures become 400 or 503 (gatewayFailure). */
  async status(companyId: number, id: number): Promise<GatewayInstanceStatus> {
    const { target } = await this.resolveTarget(companyId, id);
    try {
      const state = await this.gateway.connectionState(target);
      const checkedAt = this.clock.now();
      await this.configs.recordInstanceState(id, state, null, checkedAt);
      return { instance: target.instance, state, checkedAt };
    } catch (error) {
      throw error instanceof GatewayError ? gatewayFailure(error) : error;
    }
  }

  /** For campaigns, automations and gateway sync: ownership checked (404/403), key opened. */
  async resolveTarget(companyId: number, configId: number): Promise<ResolvedGatewayConfig> {
    const config = await this.configs.findOwnedOrFail(companyId, configId);
    return {
      config: { id: config.id, name: config.name, url: config.url, instance: config.instance },
      target: { url: config.url, apiKey: this.openKey(config), instance: config.instance },
    };
  }

  private openKey(config: GatewayConfig): string {
    try {
      return this.secrets.decrypt(config.apiKeyEncrypted, keyContext(config.companyId));
    } catch (error) {
      if (error instanceof SecretBoxError) {
        throw new GatewayConfigKeyUnreadableError();
      }
      throw error;
    }
  }

  private fieldsOf(companyId: number, input: GatewayConfigInput): GatewayConfigFields;
  private fieldsOf(
    companyId: number,
    input: Partial<GatewayConfigInput>,
  ): Partial<GatewayConfigFields>;
  private fieldsOf(
    companyId: number,
    input: Partial<GatewayConfigInput>,
  ): Partial<GatewayConfigFields> {
    return {
      name: input.name?.trim(),
      url: input.url?.trim(),
      instance: input.instance?.trim(),
      apiKeyEncrypted:
        input.apiKey === undefined
          ? undefined
          : this.secrets.encrypt(input.apiKey.trim(), keyContext(companyId)),
    };
  }

  /** The same check every request to the gateway passes, run early for a clear 400. */
  private async assertCallable(url: string): Promise<void> {
    try {
      await this.targets.check(url.trim());
    } catch (error) {
      const refusal = error instanceof OutboundError ? URL_REFUSALS[error.kind] : undefined;
      if (refusal) {
        throw new ValidationFailedError([['url', refusal]]);
      }
      throw error;
    }
  }
}

/** Binds each encrypted key to its company, so a value copied across tenants fails to open. */
function keyContext(companyId: number): string {
  return `gateway-config:${companyId}`;
}
