import { OutboxModule } from '../outbox/outbox.module';
import { NoticesModule } from '../notices/notices.module';
import { GatewayModule } from '../gateway/gateway.module';
import { AuthModule } from '../auth/auth.module';
import { Module } from '@nestjs/common';
import { BlockedContactsModule } from '../blocked-contacts/blocked-contacts.module';
import { CampaignsModule } from '../campaigns/campaigns.module';
import { GatewayEventsController } from './api/gateway-events.controller';
import { GatewayEventReception } from './api/gateway-event-reception';
import { GatewayEventsGate } from './api/gateway-events.gate';
import { GatewayEventsRoute } from './api/gateway-events.route';
import { MetaWebhookReception } from './api/meta-webhook-reception';
import { MetaWebhookRoute } from './api/meta-webhook.route';
import { CloudAccountEvents } from './application/cloud-account-events';
import { ReceiptEvents } from './application/receipt-events';
import { GatewayEventIntake } from './application/gateway-event-intake';
import { InboundMessages } from './application/inbound-messages';
import { GatewayEventProcessor } from './application/gateway-event-processor';
import { GatewayEventsRepository } from './application/ports/gateway-events.repository';
import { PgGatewayEventsRepository } from './infrastructure/gateway-events.repository';

/**
 * Hearing back from WhatsApp: the gateway's events (receipts, replies, connection changes;
 * Meta's webhooks for Cloud API configurations, translated into the same) received at a public route, stored, and applied in the background to campaigns, the block
 * list and the gateway configuration.
 */
@Module({
  imports: [
    AuthModule,
    BlockedContactsModule,
    CampaignsModule,
    GatewayModule,
    NoticesModule,
    OutboxModule,
  ],
  controllers: [GatewayEventsController],
  providers: [
    { provide: GatewayEventsRepository, useClass: PgGatewayEventsRepository },
    GatewayEventIntake,
    GatewayEventProcessor,
    InboundMessages,
    GatewayEventReception,
    GatewayEventsGate,
    GatewayEventsRoute,
    ReceiptEvents,
    CloudAccountEvents,
    MetaWebhookReception,
    MetaWebhookRoute,
  ],
})
export class GatewayEventsModule {}
