import { Injectable, OnModuleInit } from '@nestjs/common';
import { GatewayConfigUsageRegistry } from '../../gateway/application/gateway-config-usage.registry';
import { AutomationsRepository } from '../infrastructure/automations.repository';

/** A gateway configuration cannot be deleted while an active automation sends through it. */
@Injectable()
export class AutomationGatewayUsage implements OnModuleInit {
  constructor(
    private readonly registry: GatewayConfigUsageRegistry,
    private readonly automations: AutomationsRepository,
  ) {}

  onModuleInit(): void {
    this.registry.register(async (companyId, configId) =>
      (await this.automations.anyActiveUsingGateway(companyId, configId))
        ? 'usada por uma automação ativa'
        : null,
    );
  }
}
