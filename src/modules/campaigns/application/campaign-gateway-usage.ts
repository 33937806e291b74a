import { Injectable, OnModuleInit } from '@nestjs/common';
import { GatewayConfigUsageRegistry } from '../../gateway/application/gateway-config-usage.registry';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';

/** A gateway configuration cannot be deleted while a live campaign sends through it. */
@Injectable()
export class CampaignGatewayUsage implements OnModuleInit {
  constructor(
    private readonly registry: GatewayConfigUsageRegistry,
    private readonly campaigns: CampaignsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(async (companyId, configId) =>
      (await this.campaigns.usesGatewayConfig(companyId, configId))
        ? 'usada por uma campanha ativa, agendada ou pausada'
        : null,
    );
    this.registry.countSendersWith((companyId, configId) =>
      this.campaigns.activeSendersOf(companyId, configId),
    );
  }
}
