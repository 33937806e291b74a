import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute } from '../../../database/query-rows';
import { managerOf } from '../../../database/transactions';
import { Webhook } from '../domain/webhook.entity';

/** Any constant ("WHK1"): with the company id it names the lock on one company's webhook writes. */
const WEBHOOK_LOCK_SPACE = 0x57_48_4b_31;

@Injectable()
export class WebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  findByCompany(companyId: number): Promise<Webhook | null> {
    return this.dataSource.getRepository(Webhook).findOne({ where: { companyId } });
  }

  /**
   * The company's webhook (or null), with a per-company lock held until `tx` ends, so that two
   * concurrent PUTs cannot both create one, and a rotation cannot lose a concurrent edit.
   */
  async lockForCompany(tx: Transaction, companyId: number): Promise<Webhook | null> {
    await execute(tx, 'SELECT pg_advisory_xact_lock($1::int, $2::int)', [
      WEBHOOK_LOCK_SPACE,
      companyId,
    ]);
    return managerOf(tx).getRepository(Webhook).findOne({ where: { companyId } });
  }

  save(tx: Transaction, webhook: Webhook): Promise<Webhook> {
    return managerOf(tx).getRepository(Webhook).save(webhook);
  }

  /** Its deliveries and their attempt log go with it (foreign keys ON DELETE CASCADE). */
  async delete(tx: Transaction, webhook: Webhook): Promise<void> {
    await managerOf(tx)
      .getRepository(Webhook)
      .delete({ id: webhook.id, companyId: webhook.companyId });
  }
}
