import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Webhook } from '../domain/webhook.entity';
import { WebhooksRepository } from '../application/ports/webhooks.repository';

/** Any constant ("WHK1"): with the company id it names the lock on one company's webhook writes. */
const WEBHOOK_LOCK_SPACE = 0x57_48_4b_31;

@Injectable()
export class PgWebhooksRepository implements WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByCompany(companyId: number): Promise<Webhook | null> {
    return this.dataSource.getRepository(Webhook).findOne({ where: { companyId } });
  }

  /**
   * Runs `work` with the company's webhook (or null) while holding a per-company lock, so that
   * two concurrent PUTs cannot both create one, and a rotation cannot lose a concurrent edit.
   */
  withCompanyWebhook<T>(
    companyId: number,
    work: (webhook: Webhook | null, manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1::int, $2::int)', [
        WEBHOOK_LOCK_SPACE,
        companyId,
      ]);
      const webhook = await manager.getRepository(Webhook).findOne({ where: { companyId } });
      return work(webhook, manager);
    });
  }

  save(manager: EntityManager, webhook: Webhook): Promise<Webhook> {
    return manager.getRepository(Webhook).save(webhook);
  }

  /** Its deliveries and their attempt log go with it (foreign keys ON DELETE CASCADE). */
  async delete(manager: EntityManager, webhook: Webhook): Promise<void> {
    await manager.getRepository(Webhook).delete({ id: webhook.id, companyId: webhook.companyId });
  }
}
