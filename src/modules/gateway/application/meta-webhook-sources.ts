import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { SecretBox, SecretBoxError } from '../../../common/crypto/secret-box';
import { GatewayConfigsRepository } from '../infrastructure/gateway-configs.repository';
import { MetaWebhookRepository } from '../infrastructure/meta-webhook.repository';
import { appSecretContext } from './gateway-config-keys';

/** What Meta's webhook requests to a Cloud API configuration are checked against. */
export interface MetaWebhookSource {
  gatewayConfigId: number;
  companyId: number;
  phoneNumberId: string;
  businessAccountId: string;
  displayPhoneNumber: string | null;
  /** The app secret that signs the bodies; null when it no longer opens (ENCRYPTION_KEY changed). */
  appSecret: string | null;
  webhookVerifyToken: string;
}

/** Cached like the Evolution events' sources: every change to a configuration drops it at once. */
const SOURCE_TTL_MS = 30_000;
const MAX_SOURCES = 10_000;

/**
 * Who a Meta webhook request is for: the Cloud API configuration its route names, with the
 * app secret opened and the verify token, cached per configuration and dropped on the
 * gateway_configs NOTIFY (on every instance), as GatewayEventsSources does for Evolution's.
 * Also routes a change to the company's configuration of another phone number id, and records
 * what Meta reports of templates and numbers.
 */
@Injectable()
export class MetaWebhookSources implements OnApplicationBootstrap {
  private readonly sources = new ExpiringMap<number, MetaWebhookSource | null>(
    SOURCE_TTL_MS,
    MAX_SOURCES,
  );
  /** `${companyId}:${phoneNumberId}` → the configuration's id (null: none). */
  private readonly numbers = new ExpiringMap<string, number | null>(SOURCE_TTL_MS, MAX_SOURCES);
  /** Moves on every change heard of: a lookup that started before one does not cache its answer. */
  private generation = 0;

  constructor(
    private readonly configs: GatewayConfigsRepository,
    private readonly repository: MetaWebhookRepository,
    private readonly secrets: SecretBox,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.configs.watchChanges((id) => this.forget(id));
  }

  /** The Cloud API configuration of that id; null for any other id (Evolution's included). */
  async source(configId: number): Promise<MetaWebhookSource | null> {
    const cached = this.sources.get(configId);
    if (cached) {
      return cached.value;
    }
    const generation = this.generation;
    const config = await this.repository.findCloudConfig(configId);
    const source = config
      ? {
          gatewayConfigId: config.id,
          companyId: config.companyId,
          phoneNumberId: config.phoneNumberId,
          businessAccountId: config.businessAccountId,
          displayPhoneNumber: config.displayPhoneNumber,
          appSecret: this.opened(config.appSecretEncrypted, config.companyId),
          webhookVerifyToken: config.webhookVerifyToken,
        }
      : null;
    if (generation === this.generation) {
      this.sources.set(configId, source);
    }
    return source;
  }

  /** The company's Cloud API configuration of that phone number id, or null. */
  async configOfNumber(companyId: number, phoneNumberId: string): Promise<number | null> {
    const key = `${companyId}:${phoneNumberId}`;
    const cached = this.numbers.get(key);
    if (cached) {
      return cached.value;
    }
    const generation = this.generation;
    const id = await this.repository.findCloudNumber(companyId, phoneNumberId);
    if (generation === this.generation) {
      this.numbers.set(key, id);
    }
    return id;
  }

  /** See MetaWebhookRepository.findByDisplayNumber. */
  configsOfDisplayNumber(
    companyId: number,
    businessAccountId: string,
    digits: string,
  ): Promise<number[]> {
    return this.repository.findByDisplayNumber(companyId, businessAccountId, digits);
  }

  /** See MetaWebhookRepository.recordTemplateStatus. */
  recordTemplateStatus(
    companyId: number,
    businessAccountId: string,
    template: { name: string; language: string; status: string; at: Date },
  ): Promise<{ configIds: number[]; applied: boolean }> {
    return this.repository.recordTemplateStatus(companyId, businessAccountId, template);
  }

  /** See MetaWebhookRepository.recordNumberQuality. */
  recordNumberQuality(
    configId: number,
    report: { qualityRating: string | null; messagingLimitTier: string | null; at: Date },
  ): Promise<boolean> {
    return this.repository.recordNumberQuality(configId, report);
  }

  private opened(sealed: string, companyId: number): string | null {
    try {
      return this.secrets.decrypt(sealed, appSecretContext(companyId));
    } catch (error) {
      if (error instanceof SecretBoxError) {
        return null;
      }
      throw error;
    }
  }

  /** A number may move between configurations: every routing answer goes with any change. */
  private forget(configId: number | null): void {
    this.generation += 1;
    this.numbers.deleteWhere(() => true);
    if (configId === null) {
      this.sources.deleteWhere(() => true);
    } else {
      this.sources.delete(configId);
    }
  }
}
