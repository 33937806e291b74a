import { Injectable } from '@nestjs/common';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import { systemDatabase } from '../domain/system-database';
import { NewUserDatabase, UserDatabase } from '../domain/user-database.entity';
import { DatabaseLimitReachedError } from '../domain/user-database.errors';
import { RecordIndexesRepository } from './ports/record-indexes.repository';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';

export interface DatabaseStatistics {
  userDatabases: number;
  systemDatabases: number;
  totalDatabases: number;
  limit: number;
  remaining: number;
}

/**
 * A company's databases: listing, statistics against the plan's limit, status toggles and
 * deletion; and the one place where a database is created (under the limit).
 */
@Injectable()
export class UserDatabasesService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly databases: UserDatabasesRepository,
    private readonly indexes: RecordIndexesRepository,
    private readonly settings: CompanySettingsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** The SYSTEM database is created on first sight, so that every company sees it. */
  async list(companyId: number): Promise<UserDatabase[]> {
    await this.ensureSystemDatabase(companyId);
    return this.databases.listForCompany(companyId);
  }

  get(companyId: number, id: number): Promise<UserDatabase> {
    return this.databases.findOwnedOrFail(companyId, id);
  }

  async statistics(companyId: number): Promise<DatabaseStatistics> {
    await this.ensureSystemDatabase(companyId);
    const [counts, limit] = await Promise.all([
      this.databases.counts(companyId),
      this.limitOf(companyId),
    ]);
    return {
      userDatabases: counts.user,
      systemDatabases: counts.system,
      totalDatabases: counts.user + counts.system,
      limit,
      remaining: Math.max(0, limit - counts.user),
    };
  }

  async toggleStatus(companyId: number, id: number): Promise<UserDatabase> {
    const database = await this.databases.findOwnedOrFail(companyId, id);
    database.toggleStatus(this.clock.now());
    return this.databases.save(database);
  }

  /** Records go with the database; its large-database indexes are dropped in the background. */
  async delete(companyId: number, id: number): Promise<void> {
    const database = await this.databases.findOwnedOrFail(companyId, id);
    database.assertWritable();
    await this.unitOfWork.run(async (tx) => {
      await this.databases.delete(tx, companyId, id);
      await this.indexes.dropAllOf(tx, id);
    });
  }

  /**
   * Creates a database inside the caller's transaction, refusing (400) past the plan's limit.
   * Creations of one company are serialized until that transaction ends.
   */
  async createWithinLimit(tx: Transaction, props: NewUserDatabase): Promise<UserDatabase> {
    const limit = await this.limitOf(props.companyId);
    await this.databases.lockCreations(tx, props.companyId);
    if ((await this.databases.countUserDatabases(tx, props.companyId)) >= limit) {
      throw new DatabaseLimitReachedError(limit);
    }
    return this.databases.insert(tx, UserDatabase.create(props, this.clock.now()));
  }

  /** Fails fast (400) before a long upload is parsed; createWithinLimit checks again under the lock. */
  async assertBelowLimit(companyId: number): Promise<void> {
    const [counts, limit] = await Promise.all([
      this.databases.counts(companyId),
      this.limitOf(companyId),
    ]);
    if (counts.user >= limit) {
      throw new DatabaseLimitReachedError(limit);
    }
  }

  private async ensureSystemDatabase(companyId: number): Promise<void> {
    if (!(await this.databases.hasSystemDatabase(companyId))) {
      await this.databases.ensureSystemDatabase(
        companyId,
        systemDatabase(companyId, this.clock.now()),
      );
    }
  }

  private async limitOf(companyId: number): Promise<number> {
    const company = await this.settings.get(companyId);
    return company.databaseLimit ?? this.config.defaultDatabaseLimit;
  }
}
