import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../../common/crypto/secret-box';
import { OutboundTargetGuard } from '../../../common/outbound/outbound-target.guard';
import { Clock } from '../../../common/time/clock';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import {
  GatewayConfig,
  GatewayConfigFields,
  GatewayProvider,
  InstanceLimits,
} from '../domain/gateway-config.entity';
import { InstancePacing, InstanceUsage } from './ports/instance-pacing';
import {
  EvolutionOnlyError,
  GATEWAY_CONFIG,
  GatewayConfigInUseError,
  gatewayFailure,
} from '../domain/gateway-config.errors';
import {
  GatewayError,
  GatewayTarget,
  InstanceConnectionState,
  MessagingGateway,
} from '../domain/messaging-gateway';
import { GatewayConfigsRepository } from '../infrastructure/gateway-configs.repository';
import type { Transaction } from '../../../common/persistence/transaction';
import {
  InstanceRefusals,
  lockCalledFor,
  lockInForce,
  ReachOutLock,
  startLock,
} from '../domain/reach-out-lock';
import { DeliveryTrackingRegistrar } from './delivery-tracking.registrar';
import { evolutionTargetOf, keyContext, targetOf } from './gateway-config-keys';
import { assertCallableUrl } from './gateway-url-check';
import { assertFieldsFit, CloudApiConfigInput, CloudApiConfigs } from './cloud-api-configs';
import { ActiveSenders, GatewayConfigUsageRegistry } from './gateway-config-usage.registry';

export interface GatewayConfigInput {
  name: string;
  url: string;
  apiKey: string;
  instance: string;
}

/** What a request may carry: one provider's fields (the DTO checks which are required). */
export type AnyProviderInput = Partial<GatewayConfigInput> &
  Partial<CloudApiConfigInput> & { provider?: GatewayProvider };

/** Delivery tracking, on create and update: register (or remove) our webhook on the instance. */
export interface TrackingInput {
  trackDelivery?: boolean;
  /** Replace a webhook the instance already sends elsewhere. */
  replaceGatewayWebhook?: boolean;
}

/** What other modules may show or store about a configuration (docs/API-RULES.md §3). */
export interface GatewayConfigSummary {
  id: number;
  name: string;
  url: string;
  instance: string;
  /** Absent where only the above was read (a copy's or a draft's kept senders). */
  provider?: GatewayProvider;
}

export interface ResolvedGatewayConfig {
  config: GatewayConfigSummary;
  target: GatewayTarget;
}

/** An instance's day, for a person: its count and pace, who sends through it, its lock. */
export type InstanceDay = InstanceUsage & {
  activeSenders: ActiveSenders;
  reachOutLock: ReachOutLock | null;
};

/** A configuration of the company with its instance's day (GET /api/gateway-configs/usage). */
export interface ConfigDay {
  config: GatewayConfig;
  day: InstanceDay;
}

export interface GatewayInstanceStatus {
  instance: string;
  state: InstanceConnectionState;
  checkedAt: Date;
}

function limitsOf(input: Partial<InstanceLimits>): Partial<InstanceLimits> {
  return {
    dailyLimit: input.dailyLimit,
    warmupStartPerDay: input.warmupStartPerDay,
    warmupGrowthPercent: input.warmupGrowthPercent,
  };
}

@Injectable()
export class GatewayConfigsService {
  constructor(
    private readonly configs: GatewayConfigsRepository,
    private readonly secrets: SecretBox,
    private readonly targets: OutboundTargetGuard,
    private readonly gateway: MessagingGateway,
    private readonly usage: GatewayConfigUsageRegistry,
    private readonly tracking: DeliveryTrackingRegistrar,
    private readonly clock: Clock,
    private readonly pacing: InstancePacing,
    private readonly cloud: CloudApiConfigs,
  ) {}

  async create(
    companyId: number,
    body: AnyProviderInput & TrackingInput & Partial<InstanceLimits>,
  ): Promise<GatewayConfig> {
    assertFieldsFit(body.provider ?? 'EVOLUTION', body);
    if (body.provider === 'CLOUD_API') {
      return this.cloud.create(companyId, body as CloudApiConfigInput, limitsOf(body));
    }
    // The DTO requires an Evolution configuration's fields when no provider is named.
    const input = body as GatewayConfigInput & TrackingInput & Partial<InstanceLimits>;
    await assertCallableUrl(this.targets, input.url);
    const now = this.clock.now();
    const created = GatewayConfig.create(companyId, this.fieldsOf(companyId, input), now);
    created.limitSending(limitsOf(input), now);
    const config = await this.configs.save(created);
    if (input.trackDelivery) {
      // The events URL names the configuration, so it exists first; a refused registration
      // leaves nothing behind.
      try {
        await this.tracking.register(
          config,
          evolutionTargetOf(this.secrets, config),
          !!input.replaceGatewayWebhook,
        );
      } catch (error) {
        await this.configs.delete(companyId, config.id);
        throw error;
      }
      return this.configs.save(config);
    }
    return config;
  }

  /** What the instance sent today, what it may send, and who sends through it. */
  async instanceUsage(companyId: number, id: number): Promise<InstanceDay> {
    const config = await this.configs.findOwnedOrFail(companyId, id);
    const [owned] = await this.daysOf(companyId, [config]);
    if (!owned) {
      // Deleted since it was read.
      throw new ResourceNotFoundError(GATEWAY_CONFIG);
    }
    return owned.day;
  }

  /**
   * The day of every configuration of the company, oldest first: three queries however many
   * configurations it has (GET /api/gateway-configs/usage).
   */
  async companyUsage(companyId: number): Promise<ConfigDay[]> {
    return this.daysOf(companyId, await this.configs.listOldestFirst(companyId));
  }

  /** The days of the company's `configs`, read together; one deleted meanwhile is left out. */
  private async daysOf(companyId: number, configs: GatewayConfig[]): Promise<ConfigDay[]> {
    if (configs.length === 0) {
      return [];
    }
    const ids = configs.map((config) => config.id);
    const [usages, senders] = await Promise.all([
      this.pacing.usageOf(companyId, ids),
      this.usage.activeSendersOf(companyId, ids),
    ]);
    return configs.flatMap((config, i) => {
      const usage = usages.get(config.id);
      const day = usage && {
        ...usage,
        activeSenders: senders[i],
        reachOutLock: config.reachOutLock,
      };
      return day ? [{ config, day }] : [];
    });
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
    changes: AnyProviderInput & TrackingInput & Partial<InstanceLimits>,
  ): Promise<GatewayConfig> {
    const config = await this.configs.findOwnedOrFail(companyId, id);
    assertFieldsFit(config.provider, changes);
    if (config.provider === 'CLOUD_API') {
      return this.cloud.update(config, changes, limitsOf(changes));
    }
    if (changes.url !== undefined) {
      await assertCallableUrl(this.targets, changes.url);
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
      await this.tracking.register(
        config,
        evolutionTargetOf(this.secrets, config),
        !!changes.replaceGatewayWebhook,
      );
    } else if (!track && config.trackDelivery) {
      await this.tracking.unregister(config, evolutionTargetOf(this.secrets, config));
    }
    return this.configs.save(config);
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

  /**
   * What the instance's refused messages do to its reach-out lock, in `tx` (with the receipts
   * that brought them): the lock they set or widened, or null when they change nothing.
   */
  async refusalsReceived(
    tx: Transaction,
    configId: number,
    refusals: InstanceRefusals,
    rule: { threshold: number; cooldownSeconds: number },
  ): Promise<ReachOutLock | null> {
    const state = await this.configs.lockForReachOut(tx, configId);
    if (!state) {
      return null;
    }
    const now = this.clock.now();
    const current = lockInForce(state.current, now);
    const wanted = lockCalledFor(refusals, current, rule.threshold);
    if (!wanted) {
      return null;
    }
    const lock = startLock(wanted, state.previous, current, now, rule.cooldownSeconds);
    await this.configs.saveReachOutLock(tx, configId, lock);
    return lock;
  }

  /** A person lifts the instance's reach-out lock: what waited for it goes on at once. */
  async liftReachOutLock(companyId: number, id: number): Promise<void> {
    const config = await this.configs.findOwnedOrFail(companyId, id);
    if (config.provider === 'CLOUD_API') {
      throw new EvolutionOnlyError('O bloqueio de contato a quem não conversa com o número (463)');
    }
    await this.usage.reachOutLifted(await this.configs.liftReachOutLocks({ ids: [id] }));
  }

  /** Ends the locks whose cool-down is over, by this process's clock (tests move it). */
  async liftEndedReachOutLocks(): Promise<void> {
    const ended = await this.configs.liftReachOutLocks({ endedBy: this.clock.now() });
    await this.usage.reachOutLifted(ended);
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
      await this.tracking
        .unregister(config, evolutionTargetOf(this.secrets, config))
        .catch(() => undefined);
    }
    if ((await this.configs.delete(companyId, id)) === 'referenced') {
      throw new GatewayConfigInUseError([
        'ainda referenciada por outros registros (por exemplo, campanhas)',
      ]);
    }
  }

  /** Asks the gateway on every call; gateway failures become 400 or 503 (gatewayFailure). */
  async status(companyId: number, id: number): Promise<GatewayInstanceStatus> {
    const { config, target } = await this.resolveTarget(companyId, id);
    try {
      const state = await this.gateway.connectionState(target);
      const checkedAt = this.clock.now();
      await this.configs.recordInstanceState(id, state, null, checkedAt);
      return { instance: config.instance, state, checkedAt };
    } catch (error) {
      throw error instanceof GatewayError ? gatewayFailure(error) : error;
    }
  }

  /** For campaigns, automations and gateway sync: ownership checked (404/403), key opened. */
  async resolveTarget(companyId: number, configId: number): Promise<ResolvedGatewayConfig> {
    const config = await this.configs.findOwnedOrFail(companyId, configId);
    return {
      config: {
        id: config.id,
        name: config.name,
        url: config.url,
        instance: config.instance,
        provider: config.provider,
      },
      target: targetOf(this.secrets, config),
    };
  }

  /** Where Meta (or the Evolution instance, when tracking) posts the configuration's events. */
  eventsUrlOf(id: number): string {
    return this.tracking.eventsUrlOf(id);
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
}
