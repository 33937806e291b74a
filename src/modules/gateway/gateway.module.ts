import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayConfigsController } from './api/gateway-configs.controller';
import { DeliveryTrackingRegistrar } from './application/delivery-tracking.registrar';
import { GatewayConfigUsageRegistry } from './application/gateway-config-usage.registry';
import { GatewayConfigsService } from './application/gateway-configs.service';
import { GatewayEventsSources } from './application/gateway-events-sources';
import { MetaWebhookSources } from './application/meta-webhook-sources';
import { MetaWebhookRepository } from './infrastructure/meta-webhook.repository';
import { GatewayConfig } from './domain/gateway-config.entity';
import { MessagingGateway } from './domain/messaging-gateway';
import { EvolutionApiGateway } from './infrastructure/evolution-api.gateway';
import { CloudApiGateway } from './infrastructure/cloud-api.gateway';
import { MessagingGatewayRouter } from './infrastructure/messaging-gateway.router';
import { GatewayConfigsRepository } from './infrastructure/gateway-configs.repository';
import { InstancePacing } from './application/ports/instance-pacing';
import { PgInstancePacing } from './infrastructure/instance-pacing.repository';
import { GatewayTemplatesService } from './application/gateway-templates.service';
import { CloudApiConfigs } from './application/cloud-api-configs';
import { CloudApiAccount } from './application/ports/cloud-api-account';
import { GraphCloudApiAccount } from './infrastructure/cloud-api.account';
import { GraphApiClient } from './infrastructure/cloud-api.client';
import { GatewayTemplatesRepository } from './infrastructure/gateway-templates.repository';

/**
 * Gateway configurations and the gateway port: campaigns, automations, notices, gateway sync
 * and gateway events send through what it exports, and register their usage checkers here.
 */
@Module({
  imports: [TypeOrmModule.forFeature([GatewayConfig])],
  controllers: [GatewayConfigsController],
  providers: [
    EvolutionApiGateway,
    CloudApiGateway,
    { provide: MessagingGateway, useClass: MessagingGatewayRouter },
    GatewayConfigsRepository,
    { provide: InstancePacing, useClass: PgInstancePacing },
    GatewayConfigsService,
    GatewayEventsSources,
    GatewayConfigUsageRegistry,
    DeliveryTrackingRegistrar,
    MetaWebhookRepository,
    MetaWebhookSources,
    GraphApiClient,
    GraphCloudApiAccount,
    { provide: CloudApiAccount, useExisting: GraphCloudApiAccount },
    GatewayTemplatesRepository,
    GatewayTemplatesService,
    CloudApiConfigs,
  ],
  exports: [
    MessagingGateway,
    GatewayConfigsService,
    GatewayEventsSources,
    GatewayConfigUsageRegistry,
    InstancePacing,
    MetaWebhookSources,
    GatewayTemplatesService,
  ],
})
export class GatewayModule {}
