import { Module } from '@nestjs/common';
import { WebhooksController } from './api/webhooks.controller';
import { WebhookDeliveryWorker } from './application/webhook-delivery.worker';
import { WebhookSecrets } from './application/ports/webhook-secrets';
import { SealedWebhookSecrets } from './infrastructure/webhook-secrets';
import { WebhooksService } from './application/webhooks.service';
import { WebhookDeliveriesRepository } from './infrastructure/webhook-deliveries.repository';
import { WebhookSender } from './application/ports/webhook-sender';
import { HttpWebhookSender } from './infrastructure/webhook-sender';
import { WebhooksRepository } from './infrastructure/webhooks.repository';
import { webhookDeliveriesRetention } from './infrastructure/webhook-deliveries.retention';

/**
 * Campaign events to the company's webhook. Deliveries are created by a trigger on the outbox
 * (CreateWebhooks migration) in the transaction that writes each event; the worker sends them.
 * Uses the outbound client and the secret box of the shared kernel.
 */
@Module({
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    webhookDeliveriesRetention,
    WebhooksRepository,
    WebhookDeliveriesRepository,
    { provide: WebhookSecrets, useClass: SealedWebhookSecrets },
    { provide: WebhookSender, useClass: HttpWebhookSender },
    WebhookDeliveryWorker,
  ],
})
export class WebhooksModule {}
