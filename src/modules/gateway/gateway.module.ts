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
import { GatewayConfigsRepository } from './infrastructure/gateway-configs.repository';
import { InstancePacing } from './application/ports/instance-pacing';
import { PgInstancePacing } from './infrastructure/instance-pacing.repository';

/**
 * Gateway configurations and the gateway port: campaigns, automations, notices, gateway sync
 * and gateway events send through what it exports, and register their usage checkers here.
 */
@Module({
  imports: [TypeOrmModule.forFeature([GatewayConfig])],
  controllers: [GatewayConfigsController],
  providers: [
    { provide: MessagingGateway, useClass: EvolutionApiGateway },
    GatewayConfigsRepository,
    { provide: InstancePacing, useClass: PgInstancePacing },
    GatewayConfigsService,
    GatewayEventsSources,
    GatewayConfigUsageRegistry,
    DeliveryTrackingRegistrar,
    MetaWebhookRepository,
    MetaWebhookSources,
  ],
  exports: [
    MessagingGateway,
    GatewayConfigsService,
    GatewayEventsSources,
    GatewayConfigUsageRegistry,
    InstancePacing,
    MetaWebhookSources,
  ],
})
export class GatewayModule {}
