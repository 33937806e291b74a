import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayConfigsController } from './api/gateway-configs.controller';
import { DeliveryTrackingRegistrar } from './application/delivery-tracking.registrar';
import { GatewayConfigUsageRegistry } from './application/gateway-config-usage.registry';
import { GatewayConfigsService } from './application/gateway-configs.service';
import { GatewayConfig } from './domain/gateway-config.entity';
import { MessagingGateway } from './domain/messaging-gateway';
import { EvolutionApiGateway } from './infrastructure/evolution-api.gateway';
import { GatewayConfigsRepository } from './application/ports/gateway-configs.repository';
import { PgGatewayConfigsRepository } from './infrastructure/gateway-configs.repository';
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
    { provide: GatewayConfigsRepository, useClass: PgGatewayConfigsRepository },
    { provide: InstancePacing, useClass: PgInstancePacing },
    GatewayConfigsService,
    GatewayConfigUsageRegistry,
    DeliveryTrackingRegistrar,
  ],
  exports: [MessagingGateway, GatewayConfigsService, GatewayConfigUsageRegistry, InstancePacing],
})
export class GatewayModule {}
