import type { StoredRecord } from '../../domain/stored-record';
import type { EntityManager } from 'typeorm';
export abstract class SystemContactsRepository {
  /** Upserts records with distinct phones; answers how many phones were new to the database. */
  abstract upsertMany(
    manager: EntityManager,
    target: { databaseId: number; companyId: number },
    records: ReadonlyArray<{ record: StoredRecord; at: Date }>,
  ): Promise<number>;
  abstract countNewRecords(
    manager: EntityManager,
    databaseId: number,
    added: number,
  ): Promise<void>;
}
