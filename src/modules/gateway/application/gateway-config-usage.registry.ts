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

export type ActiveSendersCounter = (companyId: number, configId: number) => Promise<ActiveSenders>;

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

  activeSenders(companyId: number, configId: number): Promise<ActiveSenders> {
    return this.sendersCounter
      ? this.sendersCounter(companyId, configId)
      : Promise.resolve({ campaigns: 0, automationRuns: 0, shortestPauseSeconds: null });
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
  /** Who sends through the configuration's instance: the campaigns module alone counts them. */
  countSenders?: (repository: R, companyId: number, configId: number) => Promise<ActiveSenders>;
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
          registry.countSendersWith((companyId, configId) =>
            countSenders(records, companyId, configId),
          );
        }
      },
    }),
    inject: [GatewayConfigUsageRegistry, repository],
  };
}
