import type { Webhook } from '../../domain/webhook.entity';
import type { EntityManager } from 'typeorm';
export abstract class WebhooksRepository {
  abstract findByCompany(companyId: number): Promise<Webhook | null>;
  /**
   * Runs `work` with the company's webhook (or null) while holding a per-company lock, so that
   * two concurrent PUTs cannot both create one, and a rotation cannot lose a concurrent edit.
   */
  abstract withCompanyWebhook<T>(
    companyId: number,
    work: (webhook: Webhook | null, manager: EntityManager) => Promise<T>,
  ): Promise<T>;
  abstract save(manager: EntityManager, webhook: Webhook): Promise<Webhook>;
  /** Its deliveries and their attempt log go with it (foreign keys ON DELETE CASCADE). */
  abstract delete(manager: EntityManager, webhook: Webhook): Promise<void>;
}
