import { Module } from '@nestjs/common';
import { WebhooksController } from './api/webhooks.controller';
import { WebhookDeliveryWorker } from './application/webhook-delivery.worker';
import { WebhookSecrets } from './application/webhook-secrets';
import { WebhooksService } from './application/webhooks.service';
import { WebhookDeliveriesRepository } from './infrastructure/webhook-deliveries.repository';
import { WebhookSender } from './infrastructure/webhook-sender';
import { WebhooksRepository } from './infrastructure/webhooks.repository';

/**
 * Campaign events to the company's webhook. Deliveries are created by a trigger on the outbox
 * (CreateWebhooks migration) in the transaction that writes each event; the worker sends them.
 * Uses the outbound client and the secret box that GatewayModule provides globally.
 */
@Module({
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookDeliveriesRepository,
    WebhookSecrets,
    WebhookSender,
    WebhookDeliveryWorker,
  ],
})
export class WebhooksModule {}
