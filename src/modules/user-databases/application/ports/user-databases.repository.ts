import { OwnedResources } from '../../../../common/tenancy/owned-resource';
import type { ColumnDefinition } from '../../domain/column';
import type { UserDatabase } from '../../domain/user-database.entity';
import type { EntityManager } from 'typeorm';
export interface DatabaseCounts {
  user: number;
  system: number;
}

export abstract class UserDatabasesRepository extends OwnedResources<UserDatabase> {
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** The SYSTEM database first, then the newest. */
  abstract listForCompany(companyId: number): Promise<UserDatabase[]>;
  abstract counts(companyId: number): Promise<DatabaseCounts>;
  /**
   * Holds until the transaction ends: one creation at a time per company, so that two
   * concurrent imports cannot both pass the plan's limit.
   */
  abstract lockCreations(manager: EntityManager, companyId: number): Promise<void>;
  abstract countUserDatabases(manager: EntityManager, companyId: number): Promise<number>;
  abstract insert(manager: EntityManager, database: UserDatabase): Promise<UserDatabase>;
  abstract save(database: UserDatabase, manager?: EntityManager): Promise<UserDatabase>;
  /** The database, row-locked until the transaction ends (appends and syncs serialize on it); 404/403. */
  abstract lockOwned(manager: EntityManager, companyId: number, id: number): Promise<UserDatabase>;
  /** Adds `delta` records to rowCount (and new columns, when an append brought some). */
  abstract recordRowsAdded(
    manager: EntityManager,
    id: number,
    delta: number,
    now: Date,
    columns?: ColumnDefinition[],
  ): Promise<void>;
  /** Records go with it (foreign key ON DELETE CASCADE). */
  abstract delete(manager: EntityManager, companyId: number, id: number): Promise<void>;
  /** The company's SYSTEM database id, creating the database when it does not exist yet. */
  abstract ensureSystemDatabase(
    companyId: number,
    database: UserDatabase,
    manager?: EntityManager,
  ): Promise<{ id: number; created: boolean }>;
  abstract hasSystemDatabase(companyId: number): Promise<boolean>;
}
