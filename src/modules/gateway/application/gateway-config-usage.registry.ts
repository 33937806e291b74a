import { Injectable, type OnModuleInit, type Provider, type Type } from '@nestjs/common';

/**
 * Answers whether a saved gateway configuration is in use, with a Portuguese reason
 * ('usada por uma campanha ativa'), or null when that module does not use it.
 */
export type GatewayConfigUsageChecker = (
  companyId: number,
  configId: number,
) => Promise<string | null>;

/** Who sends through an instance now: ACTIVE campaigns and running automation runs. */
export interface ActiveSenders {
  campaigns: number;
  automationRuns: number;
  /** The shortest pause (minimum interval, seconds) among them; null: none. */
  shortestPauseSeconds: number | null;
}

/** The senders of one configuration, as a count of several configurations at once answers them. */
export interface CountedSenders extends ActiveSenders {
  gatewayConfigId: number;
}

/** Counts the senders of several configurations in one go; one without any may have no row. */
export type ActiveSendersCounter = (
  companyId: number,
  configIds: number[],
) => Promise<CountedSenders[]>;

const NO_SENDERS: Readonly<ActiveSenders> = {
  campaigns: 0,
  automationRuns: 0,
  shortestPauseSeconds: null,
};

/**
 * Modules that refer to gateway configurations (campaigns, automations) register a checker
 * on module init; deleting a configuration asks every one of them. This keeps the gateway
 * module from depending on the modules that depend on it.
 */
@Injectable()
export class GatewayConfigUsageRegistry {
  private readonly checkers = new Set<GatewayConfigUsageChecker>();
  private sendersCounter: ActiveSendersCounter | null = null;
  private readonly liftListeners = new Set<(configIds: number[]) => Promise<void>>();

  /** The campaigns module wakes what waited for an instance's reach-out lock. */
  onReachOutLifted(listener: (configIds: number[]) => Promise<void>): void {
    this.liftListeners.add(listener);
  }

  async reachOutLifted(configIds: number[]): Promise<void> {
    if (configIds.length > 0) {
      for (const listener of this.liftListeners) {
        await listener(configIds);
      }
    }
  }

  /** The campaigns module counts who sends through an instance (automation runs are campaigns). */
  countSendersWith(counter: ActiveSendersCounter): void {
    this.sendersCounter = counter;
  }

  async activeSenders(companyId: number, configId: number): Promise<ActiveSenders> {
    const [senders] = await this.activeSendersOf(companyId, [configId]);
    return senders;
  }

  /**
   * Who sends through each of the configurations, in one count however many (a company's usage
   * view): the answers in the order of `configIds`, zero where nobody sends.
   */
  async activeSendersOf(companyId: number, configIds: number[]): Promise<ActiveSenders[]> {
    const counted =
      this.sendersCounter && configIds.length > 0
        ? await this.sendersCounter(companyId, configIds)
        : [];
    const byId = new Map<number, ActiveSenders>(
      counted.map(({ gatewayConfigId, ...senders }) => [gatewayConfigId, senders]),
    );
    return configIds.map((id) => byId.get(id) ?? NO_SENDERS);
  }

  /** Returns the function that removes the checker again. */
  register(checker: GatewayConfigUsageChecker): () => void {
    this.checkers.add(checker);
    return () => this.checkers.delete(checker);
  }

  /** Every reason the configuration is in use; empty when it is free to delete. */
  async reasonsInUse(companyId: number, configId: number): Promise<string[]> {
    const answers = await Promise.all(
      [...this.checkers].map((check) => check(companyId, configId)),
    );
    return answers.filter(
      (reason): reason is string => typeof reason === 'string' && reason !== '',
    );
  }
}

/** How a module's records use gateway configurations, asked of its repository `R`. */
export interface GatewayConfigUsage<R> {
  /** Why a configuration in use cannot be deleted, in Portuguese ('usada por uma automação ativa'). */
  reason: string;
  inUse: (repository: R, companyId: number, configId: number) => Promise<boolean>;
  /**
   * Who sends through the instances of the configurations, all counted at once: the campaigns
   * module alone counts them.
   */
  countSenders?: (
    repository: R,
    companyId: number,
    configIds: number[],
  ) => Promise<CountedSenders[]>;
}

/**
 * A provider that tells the registry how a module uses gateway configurations when the module
 * starts (onModuleInit); list it among the module's providers:
 * `gatewayConfigUsage(AutomationsRepository, { reason: 'usada por …', inUse: … })`.
 */
export function gatewayConfigUsage<R>(repository: Type<R>, usage: GatewayConfigUsage<R>): Provider {
  return {
    provide: Symbol(`gateway config usage: ${usage.reason}`),
    useFactory: (registry: GatewayConfigUsageRegistry, records: R): OnModuleInit => ({
      onModuleInit: () => {
        registry.register(async (companyId, configId) =>
          (await usage.inUse(records, companyId, configId)) ? usage.reason : null,
        );
        const { countSenders } = usage;
        if (countSenders) {
          registry.countSendersWith((companyId, configIds) =>
            countSenders(records, companyId, configIds),
          );
        }
      },
    }),
    inject: [GatewayConfigUsageRegistry, repository],
  };
}
