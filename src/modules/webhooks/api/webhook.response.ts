import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DELIVERY_STATUSES } from '../domain/webhook-delivery';
import { WEBHOOK_EVENTS } from '../domain/webhook-events';
import type { Webhook } from '../domain/webhook.entity';
import type { AttemptRow, DeliveryRow } from '../domain/webhook-delivery';

/** The configuration; the secret is write-once: only creation and rotation answers carry it. */
export class WebhookResponse {
  @ApiProperty({ example: 3 }) id!: number;
  @ApiProperty({ example: 'https://hooks.example.com/campanhas' }) url!: string;
  @ApiProperty({ type: [String], enum: WEBHOOK_EVENTS, example: [...WEBHOOK_EVENTS] })
  events!: string[];
  @ApiProperty({ example: true }) isActive!: boolean;
  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description:
      'Depois de uma troca de segredo, até quando as entregas levam também a assinatura do segredo anterior',
  })
  previousSecretValidUntil!: string | null;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) updatedAt!: string;
}

export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiPropertyOptional({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'Segredo de assinatura (Standard Webhooks): "whsec_" + base64 da chave. A chave HMAC são os bytes ' +
      'decodificados do base64, não o texto. Mostrado só nesta resposta.',
  })
  secret?: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: 1042 }) id!: number;
  @ApiProperty({ enum: WEBHOOK_EVENTS, example: 'campaign.progress' }) event!: string;
  @ApiProperty({ nullable: true, type: Number, example: 17 }) campaignId!: number | null;
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'DELIVERED' }) status!: string;
  @ApiProperty({ example: 2, description: 'Tentativas feitas até agora' }) attempts!: number;
  @ApiProperty({ nullable: true, type: Number, example: 200 }) lastStatusCode!: number | null;
  @ApiProperty({ nullable: true, type: String, example: null }) lastError!: string | null;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ nullable: true, type: String, example: '2026-11-22T12:00:10.250Z' })
  deliveredAt!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: null,
    description: 'Quando a próxima tentativa está prevista (só em PENDING)',
  })
  nextAttemptAt!: string | null;
}

export class WebhookAttemptResponse {
  @ApiProperty({ example: 1 }) attempt!: number;
  @ApiProperty({ example: '2026-11-22T12:00:00.120Z' }) startedAt!: string;
  @ApiProperty({ nullable: true, type: Number, example: 35 }) durationMs!: number | null;
  @ApiProperty({ nullable: true, type: Number, example: 500 }) statusCode!: number | null;
  @ApiProperty({ nullable: true, type: String, example: 'o destino respondeu HTTP 500' })
  error!: string | null;
}

export function toWebhookResponse(webhook: Webhook, now: Date): WebhookResponse {
  return {
    id: webhook.id,
    url: webhook.url,
    events: [...webhook.events],
    isActive: webhook.isActive,
    previousSecretValidUntil: webhook.previousSecretValidUntil(now)?.toISOString() ?? null,
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}

export function toWebhookWithSecretResponse(
  webhook: Webhook,
  secret: string | undefined,
  now: Date,
): WebhookWithSecretResponse {
  const response: WebhookWithSecretResponse = toWebhookResponse(webhook, now);
  if (secret !== undefined) {
    response.secret = secret;
  }
  return response;
}

export function toWebhookDeliveryResponse(row: DeliveryRow): WebhookDeliveryResponse {
  return {
    id: Number(row.id),
    event: row.event,
    campaignId: row.campaignId,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
  };
}

export function toWebhookAttemptResponse(row: AttemptRow): WebhookAttemptResponse {
  return {
    attempt: row.attempt,
    startedAt: row.startedAt.toISOString(),
    durationMs: row.durationMs,
    statusCode: row.statusCode,
    error: row.error,
  };
}
