import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretBox } from '../../common/crypto/secret-box';
import { OutboundHttpClient } from '../../common/outbound/outbound-http.client';
import { OutboundTargetGuard } from '../../common/outbound/outbound-target.guard';
import { GatewayConfigsController } from './api/gateway-configs.controller';
import { DeliveryTrackingRegistrar } from './application/delivery-tracking.registrar';
import { GatewayConfigUsageRegistry } from './application/gateway-config-usage.registry';
import { GatewayConfigsService } from './application/gateway-configs.service';
import { GatewayConfig } from './domain/gateway-config.entity';
import { MessagingGateway } from './domain/messaging-gateway';
import { EvolutionApiGateway } from './infrastructure/evolution-api.gateway';
import { GatewayConfigsRepository } from './infrastructure/gateway-configs.repository';

/**
 * Global: campaigns, automations, gateway sync, media and webhooks all send through what
 * this module provides (the gateway port, saved configurations, the outbound client, the
 * secret box) and register their usage checkers here.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([GatewayConfig])],
  controllers: [GatewayConfigsController],
  providers: [
    OutboundTargetGuard,
    OutboundHttpClient,
    SecretBox,
    { provide: MessagingGateway, useClass: EvolutionApiGateway },
    GatewayConfigsRepository,
    GatewayConfigsService,
    GatewayConfigUsageRegistry,
    DeliveryTrackingRegistrar,
  ],
  exports: [
    MessagingGateway,
    GatewayConfigsService,
    GatewayConfigUsageRegistry,
    OutboundHttpClient,
    OutboundTargetGuard,
    SecretBox,
  ],
})
export class GatewayModule {}
