import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../../common/crypto/secret-box';
import { Clock } from '../../../common/time/clock';
import { gatewayFailure } from '../domain/gateway-config.errors';
import type { GatewayTemplate } from '../domain/gateway-template';
import { GatewayError } from '../domain/messaging-gateway';
import { GatewayConfigsRepository } from '../infrastructure/gateway-configs.repository';
import { GatewayTemplatesRepository } from '../infrastructure/gateway-templates.repository';
import { cloudTargetOf } from './gateway-config-keys';
import { CloudApiAccount } from './ports/cloud-api-account';

const TEMPLATES = 'Modelos de mensagem (templates)';

/**
 * The message templates of a Cloud API configuration's business account, kept in
 * gateway_templates as Meta last listed them. Creating and editing templates stays in Meta's
 * tools; this reads them on demand, when none are stored yet, and when Meta reports a change.
 */
@Injectable()
export class GatewayTemplatesService {
  constructor(
    private readonly configs: GatewayConfigsRepository,
    private readonly templates: GatewayTemplatesRepository,
    private readonly account: CloudApiAccount,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** The stored list (read from Meta first when `refresh` or when none is stored yet). */
  async list(
    companyId: number,
    gatewayConfigId: number,
    refresh: boolean,
  ): Promise<GatewayTemplate[]> {
    await this.cloudConfigOf(companyId, gatewayConfigId);
    if (!refresh) {
      const stored = await this.templates.listOf(companyId, gatewayConfigId);
      if (stored.length > 0) {
        return stored;
      }
    }
    await this.refresh(companyId, gatewayConfigId);
    return this.templates.listOf(companyId, gatewayConfigId);
  }

  /** Reads the business account's templates from Meta and stores them in place of the old. */
  async refresh(companyId: number, gatewayConfigId: number): Promise<void> {
    const target = await this.cloudConfigOf(companyId, gatewayConfigId);
    let listed;
    try {
      listed = await this.account.listTemplates(target);
    } catch (error) {
      throw error instanceof GatewayError ? gatewayFailure(error) : error;
    }
    await this.templates.replace(companyId, gatewayConfigId, listed, this.clock.now());
  }

  /** One template by name and language; Meta is read once when it is not stored. */
  async find(
    companyId: number,
    gatewayConfigId: number,
    name: string,
    language: string,
  ): Promise<GatewayTemplate | null> {
    await this.cloudConfigOf(companyId, gatewayConfigId);
    const stored = await this.templates.find(companyId, gatewayConfigId, name, language);
    if (stored) {
      return stored;
    }
    await this.refresh(companyId, gatewayConfigId);
    return this.templates.find(companyId, gatewayConfigId, name, language);
  }

  private async cloudConfigOf(companyId: number, gatewayConfigId: number) {
    const config = await this.configs.findOwnedOrFail(companyId, gatewayConfigId);
    return cloudTargetOf(this.secrets, config, TEMPLATES);
  }
}
