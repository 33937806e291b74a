import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { OutboundTargetGuard } from '../../../common/outbound/outbound-target.guard';
import { OutboundError } from '../../../common/outbound/outbound.errors';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { Clock } from '../../../common/time/clock';
import type { CampaignEventType } from '../../campaigns/domain/campaign-events';
import { normalizeEvents, WebhookEvent } from '../domain/webhook-events';
import { Webhook } from '../domain/webhook.entity';
import { WebhookDeliveryNotFoundError, WebhookNotConfiguredError } from '../domain/webhook.errors';
import { generateWebhookSecret } from '../domain/webhook-signature';
import { AttemptRow, DeliveryFilter, DeliveryRow } from '../domain/webhook-delivery';
import { WebhookDeliveriesRepository } from '../infrastructure/webhook-deliveries.repository';
import { WebhooksRepository } from '../infrastructure/webhooks.repository';
import { WebhookSecrets } from './ports/webhook-secrets';

export interface WebhookInput {
  url: string;
  events?: WebhookEvent[];
  isActive?: boolean;
}

/** The webhook, plus its secret in the one answer that shows it (creation, rotation). */
export interface WebhookWithSecret {
  webhook: Webhook;
  secret?: string;
  created: boolean;
}

const URL_REFUSALS: Partial<Record<OutboundError['kind'], string>> = {
  invalid_url: 'deve ser uma URL http:// ou https:// válida, sem usuário e senha',
  target_refused: 'aponta para um endereço de rede não permitido',
  unresolvable: 'tem um host que não foi encontrado (DNS)',
};

/** A company's webhook configuration and its delivery log. */
/** Compiles only while every campaign event is a webhook event (WEBHOOK_EVENTS lists it). */
export type CampaignEventsAreWebhookEvents = AssertNone<Exclude<CampaignEventType, WebhookEvent>>;
type AssertNone<T extends never> = T;

@Injectable()
export class WebhooksService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly secrets: WebhookSecrets,
    private readonly targets: OutboundTargetGuard,
    private readonly clock: Clock,
  ) {}

  async get(companyId: number): Promise<Webhook> {
    return this.configured(await this.webhooks.findByCompany(companyId));
  }

  /**
   * Creates the webhook (with a new secret, shown in this answer only) or replaces its
   * settings: fields left out take their defaults (all four events, active). Retries waiting
   * for a later attempt are made due at once, so a corrected URL gets them without delay.
   */
  async put(companyId: number, input: WebhookInput): Promise<WebhookWithSecret> {
    const url = input.url.trim();
    await this.assertCallable(url);
    const settings = {
      url,
      events: normalizeEvents(input.events),
      isActive: input.isActive ?? true,
    };
    const now = this.clock.now();
    const result = await this.unitOfWork.run(async (tx) => {
      const existing = await this.webhooks.lockForCompany(tx, companyId);
      if (existing) {
        existing.reconfigure(settings, now);
        return { webhook: await this.webhooks.save(tx, existing), created: false };
      }
      const secret = generateWebhookSecret();
      const webhook = Webhook.create(
        companyId,
        settings,
        this.secrets.seal(companyId, secret),
        now,
      );
      return { webhook: await this.webhooks.save(tx, webhook), secret, created: true };
    });
    if (!result.created && settings.isActive) {
      await this.deliveries.makePendingDueNow(companyId);
    }
    return result;
  }

  async delete(companyId: number): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const existing = await this.webhooks.lockForCompany(tx, companyId);
      await this.webhooks.delete(tx, this.configured(existing));
    });
  }

  /** A new secret signs from now on; the previous one co-signs for 24 hours (see Webhook). */
  async rotateSecret(companyId: number): Promise<WebhookWithSecret> {
    return this.unitOfWork.run(async (tx) => {
      const webhook = this.configured(await this.webhooks.lockForCompany(tx, companyId));
      const secret = generateWebhookSecret();
      webhook.rotateSecret(this.secrets.seal(companyId, secret), this.clock.now());
      return { webhook: await this.webhooks.save(tx, webhook), secret, created: false };
    });
  }

  async deliveryLog(
    companyId: number,
    query: DeliveryFilter,
  ): Promise<{ items: DeliveryRow[]; total: number }> {
    await this.get(companyId);
    return this.deliveries.list(companyId, query);
  }

  async attempts(companyId: number, deliveryId: number): Promise<AttemptRow[]> {
    await this.get(companyId);
    const delivery = await this.deliveries.findOne(companyId, String(deliveryId));
    if (!delivery) {
      throw new WebhookDeliveryNotFoundError();
    }
    return this.deliveries.attempts(companyId, delivery.id);
  }

  private configured(webhook: Webhook | null): Webhook {
    if (!webhook) {
      throw new WebhookNotConfiguredError();
    }
    return webhook;
  }

  /** The check every delivery passes, run at configuration for a clear 400. */
  private async assertCallable(url: string): Promise<void> {
    try {
      await this.targets.check(url);
    } catch (error) {
      const refusal = error instanceof OutboundError ? URL_REFUSALS[error.kind] : undefined;
      if (refusal) {
        throw new ValidationFailedError([['url', refusal]]);
      }
      throw error;
    }
  }
}
