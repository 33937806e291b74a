import { Injectable } from '@nestjs/common';
import { SecretBoxError } from '../../../common/crypto/secret-box';
import { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { OutboundError } from '../../../common/outbound/outbound.errors';
import { WebhookSecrets } from '../application/ports/webhook-secrets';
import type { AttemptResult, ClaimedDelivery } from '../domain/webhook-delivery';
import { webhookBody, webhookMessageId } from '../domain/webhook-payload';
import { signatureHeader } from '../domain/webhook-signature';
import { WebhookSender } from '../application/ports/webhook-sender';

/** Only the receiver's status is kept; an answer larger than this fails the attempt. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const UNREADABLE_SECRET =
  'não foi possível abrir o segredo do webhook (ENCRYPTION_KEY diferente da que o criou?); gere um novo com rotate-secret';

@Injectable()
export class HttpWebhookSender implements WebhookSender {
  constructor(
    private readonly http: OutboundHttpClient,
    private readonly secrets: WebhookSecrets,
  ) {}

  async send(
    delivery: ClaimedDelivery,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<AttemptResult> {
    let secrets: string[];
    try {
      secrets = [delivery.secretEncrypted, delivery.previousSecretEncrypted]
        .filter((sealed): sealed is string => sealed !== null)
        .map((sealed) => this.secrets.open(delivery.companyId, sealed));
    } catch (error) {
      if (error instanceof SecretBoxError) {
        return { kind: 'error', message: UNREADABLE_SECRET };
      }
      throw error;
    }
    const id = webhookMessageId(delivery.outboxEventId);
    const timestamp = Math.floor(Date.now() / 1000);
    const body = webhookBody(delivery.payload);
    try {
      const response = await this.http.request({
        method: 'POST',
        url: delivery.url,
        headers: {
          'Content-Type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, id, timestamp, body),
        },
        body,
        timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        signal,
      });
      return { kind: 'response', statusCode: response.status };
    } catch (error) {
      if (error instanceof OutboundError) {
        return error.kind === 'aborted'
          ? { kind: 'aborted' }
          : { kind: 'error', message: error.message };
      }
      throw error;
    }
  }
}
