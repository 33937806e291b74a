import { Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretsEqual } from '../../../common/crypto/hashing';
import { ForbiddenError, ValidationFailedError } from '../../../common/errors/domain-error';
import { assertSafeBody } from '../../../common/http/text-hygiene';
import { Metrics } from '../../../common/metrics/metrics';
import {
  MetaWebhookSource,
  MetaWebhookSources,
} from '../../gateway/application/meta-webhook-sources';
import { GatewayEventIntake } from '../application/gateway-event-intake';
import { unauthorizedEvent } from '../domain/gateway-event';
import { MetaChange, parseMetaWebhook } from '../domain/meta-webhook';

/** Meta's signature header: `sha256=` and the hex HMAC-SHA256 of the raw body with the app secret. */
export const META_SIGNATURE_HEADER = 'x-hub-signature-256';
const SIGNATURE = /^sha256=([0-9a-f]{64})$/i;

/**
 * What the events route does for a Cloud API configuration (developers.facebook.com/
 * documentation/business-messaging/whatsapp/webhooks: verification requests and event
 * notifications): the GET verification echoes `hub.challenge` for the configuration's verify
 * token; a POST is taken only with its app secret's signature over the raw bytes, both
 * compared in constant time, and its changes are stored through the same intake as
 * Evolution's events (translated by meta-webhook.ts) before the answer. A change for another
 * of the company's numbers is stored for that number's configuration; one for a number the
 * company does not have is counted and dropped.
 */
@Injectable()
export class MetaWebhookReception {
  constructor(
    private readonly sources: MetaWebhookSources,
    private readonly intake: GatewayEventIntake,
    private readonly metrics: Metrics,
  ) {}

  /** The configuration the route names, when it is a Cloud API one. */
  sourceOf(configId: number): Promise<MetaWebhookSource | null> {
    return this.sources.source(configId);
  }

  /** The challenge to answer; throws 403 unless subscribe with the configuration's verify token. */
  verify(source: MetaWebhookSource | null, query: URLSearchParams): string {
    const token = query.get('hub.verify_token');
    const challenge = query.get('hub.challenge');
    if (
      !source ||
      query.get('hub.mode') !== 'subscribe' ||
      token === null ||
      challenge === null ||
      !secretsEqual(token, source.webhookVerifyToken)
    ) {
      throw new ForbiddenError(
        'GATEWAY_EVENTS.VERIFICATION_REFUSED',
        'Verificação do webhook recusada',
      );
    }
    return challenge;
  }

  /** Resolves once every change is stored; throws the error to answer (401: nothing stored). */
  async receive(source: MetaWebhookSource, raw: Buffer, signature: unknown): Promise<void> {
    if (!signatureMatches(source.appSecret, raw, signature)) {
      this.metrics.countGatewayEventRefused('signature');
      throw unauthorizedEvent();
    }
    const changes = this.changesOf(raw);
    const stored: Array<Promise<void>> = [];
    for (const change of changes) {
      const gatewayConfigId = await this.configFor(source, change);
      if (gatewayConfigId === null) {
        this.metrics.countGatewayEventRefused('unrouted');
        continue;
      }
      stored.push(
        this.intake.store({
          gatewayConfigId,
          companyId: source.companyId,
          event: change.event,
          payload: { data: change.data, at: change.at.toISOString() },
        }),
      );
    }
    await Promise.all(stored);
  }

  private changesOf(raw: Buffer): MetaChange[] {
    try {
      const body: unknown = JSON.parse(raw.toString('utf8'));
      assertSafeBody(body);
      return parseMetaWebhook(body, new Date());
    } catch (error) {
      this.metrics.countGatewayEventRefused('invalid');
      throw error instanceof SyntaxError
        ? new ValidationFailedError([['body', 'não é um JSON válido']])
        : error;
    }
  }

  /** Messages go to the configuration of their number in the same company; account changes stay. */
  private async configFor(source: MetaWebhookSource, change: MetaChange): Promise<number | null> {
    if (change.phoneNumberId === null || change.phoneNumberId === source.phoneNumberId) {
      return source.gatewayConfigId;
    }
    return this.sources.configOfNumber(source.companyId, change.phoneNumberId);
  }
}

/** Constant time over the digest; an app secret that no longer opens matches nothing. */
export function signatureMatches(appSecret: string | null, raw: Buffer, header: unknown): boolean {
  const presented = typeof header === 'string' ? SIGNATURE.exec(header.trim())?.[1] : undefined;
  if (!appSecret || !presented) {
    return false;
  }
  const expected = createHmac('sha256', appSecret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(presented, 'hex'));
}
