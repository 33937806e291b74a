import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { secretsEqual } from '../../../common/crypto/hashing';
import { SecretBox, SecretBoxError } from '../../../common/crypto/secret-box';
import { Clock } from '../../../common/time/clock';
import type { EventsRefusal, GatewayConfig } from '../domain/gateway-config.entity';
import { GatewayConfigsRepository } from '../infrastructure/gateway-configs.repository';
import {
  DeliveryTrackingRegistrar,
  instanceTokenContext,
  secretHash,
} from './delivery-tracking.registrar';
import { evolutionTargetOf, keyContext } from './gateway-config-keys';

/** What an inbound gateway event is checked against, and whose it is. */
export interface EventsSource {
  gatewayConfigId: number;
  companyId: number;
  instance: string;
  /** What an event's `apikey` may be: the configuration's key, and the instance's own token. */
  apiKeys: string[];
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

/**
 * Who an inbound gateway event comes from: the configuration it names, checked against the
 * secret it carries and the keys its apikey may be, cached per configuration and dropped on
 * every change to it (on every instance). Also learns an instance's own token, and notes on
 * the configuration the events it refused.
 */
@Injectable()
export class GatewayEventsSources implements OnApplicationBootstrap {
  constructor(
    private readonly configs: GatewayConfigsRepository,
    private readonly secrets: SecretBox,
    private readonly tracking: DeliveryTrackingRegistrar,
    private readonly clock: Clock,
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
        (await this.tracking.learnInstanceToken(
          config,
          evolutionTargetOf(this.secrets, config),
          apikey,
        ))
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
}
