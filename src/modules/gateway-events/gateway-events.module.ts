import { Module } from '@nestjs/common';
import { BlocklistModule } from '../blocklist/blocklist.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { GatewayEventsController } from './api/gateway-events.controller';
import { GatewayEventIntake } from './application/gateway-event-intake';
import { GatewayEventProcessor } from './application/gateway-event-processor';
import { GatewayEventsRepository } from './infrastructure/gateway-events.repository';

/**
 * Hearing back from WhatsApp: the gateway's events (receipts, replies, connection changes)
 * received at a public route, stored, and applied in the background to campaigns, the block
 * list and the gateway configuration.
 */
@Module({
  imports: [CampaignsModule, BlocklistModule],
  controllers: [GatewayEventsController],
  providers: [GatewayEventsRepository, GatewayEventIntake, GatewayEventProcessor],
})
export class GatewayEventsModule {}
