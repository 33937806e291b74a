import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { queryRows } from '../../../database/query-rows';
import { assertOwned, TenantRepository } from '../../../common/tenancy/owned-resource';
import { statusLiteral } from '../../../common/state/transition-table';
import type { ColumnDefinition } from '../domain/column';
import { UserDatabase } from '../domain/user-database.entity';
import { USER_DATABASE } from '../domain/user-database.errors';
import { USER_DATABASE_CREATED } from '../domain/user-database-status';
import {
  DatabaseCounts,
  UserDatabasesRepository,
} from '../application/ports/user-databases.repository';

/** Namespace of the advisory locks that serialize one company's database creations (limit checks). */
const CREATION_LOCK_NAMESPACE = 7_346_200;

@Injectable()
export class PgUserDatabasesRepository
  extends TenantRepository<UserDatabase>
  implements UserDatabasesRepository
{
  constructor(
    @InjectRepository(UserDatabase) repository: Repository<UserDatabase>,
    private readonly dataSource: DataSource,
  ) {
    super(repository, USER_DATABASE);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** The SYSTEM database first, then the newest. */
  listForCompany(companyId: number): Promise<UserDatabase[]> {
    return this.repository
      .createQueryBuilder('d')
      .where('d.companyId = :companyId', { companyId })
      .orderBy(`CASE WHEN d.origin = 'SYSTEM' THEN 0 ELSE 1 END`)
      .addOrderBy('d.id', 'DESC')
      .getMany();
  }

  async counts(companyId: number): Promise<DatabaseCounts> {
    const rows = await queryRows<DatabaseCounts>(
      this.dataSource,
      `SELECT count(*) FILTER (WHERE origin <> 'SYSTEM')::int AS "user",
              count(*) FILTER (WHERE origin = 'SYSTEM')::int AS "system"
         FROM user_databases WHERE company_id = $1`,
      [companyId],
    );
    return rows[0];
  }

  /**
   * Holds until the transaction ends: one creation at a time per company, so that two
   * concurrent imports cannot both pass the plan's limit.
   */
  async lockCreations(manager: EntityManager, companyId: number): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock($1, $2)`, [
      CREATION_LOCK_NAMESPACE,
      companyId,
    ]);
  }

  async countUserDatabases(manager: EntityManager, companyId: number): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      manager,
      `SELECT count(*)::int AS n FROM user_databases WHERE company_id = $1 AND origin <> 'SYSTEM'`,
      [companyId],
    );
    return rows[0].n;
  }

  insert(manager: EntityManager, database: UserDatabase): Promise<UserDatabase> {
    return manager.getRepository(UserDatabase).save(database);
  }

  save(database: UserDatabase, manager?: EntityManager): Promise<UserDatabase> {
    return (manager ? manager.getRepository(UserDatabase) : this.repository).save(database);
  }

  /** The database, row-locked until the transaction ends (appends and syncs serialize on it); 404/403. */
  async lockOwned(manager: EntityManager, companyId: number, id: number): Promise<UserDatabase> {
    const database = await manager
      .getRepository(UserDatabase)
      .createQueryBuilder('d')
      .setLock('pessimistic_write')
      .where('d.id = :id', { id })
      .getOne();
    return assertOwned(database, companyId, USER_DATABASE);
  }

  /** Adds `delta` records to rowCount (and new columns, when an append brought some). */
  async recordRowsAdded(
    manager: EntityManager,
    id: number,
    delta: number,
    now: Date,
    columns?: ColumnDefinition[],
  ): Promise<void> {
    await manager.query(
      `UPDATE user_databases
          SET row_count = row_count + $2, updated_at = $3, columns = coalesce($4::jsonb, columns)
        WHERE id = $1`,
      [id, delta, now, columns ? JSON.stringify(columns) : null],
    );
  }

  /** Records go with it (foreign key ON DELETE CASCADE). */
  async delete(manager: EntityManager, companyId: number, id: number): Promise<void> {
    await manager.query(`DELETE FROM user_databases WHERE id = $1 AND company_id = $2`, [
      id,
      companyId,
    ]);
  }

  /** The company's SYSTEM database id, creating the database when it does not exist yet. */
  async ensureSystemDatabase(
    companyId: number,
    database: UserDatabase,
    manager?: EntityManager,
  ): Promise<{ id: number; created: boolean }> {
    const runner = manager ?? this.dataSource;
    const inserted = await queryRows<{ id: number }>(
      runner,
      `INSERT INTO user_databases (company_id, name, description, origin, status, row_count, columns, created_at, updated_at)
       VALUES ($1, $2, $3, 'SYSTEM', ${statusLiteral(USER_DATABASE_CREATED)}, 0, $4::jsonb, $5, $5)
       ON CONFLICT (company_id) WHERE origin = 'SYSTEM' DO NOTHING
       RETURNING id`,
      [
        companyId,
        database.name,
        database.description,
        JSON.stringify(database.columns),
        database.createdAt,
      ],
    );
    if (inserted[0]) {
      return { id: inserted[0].id, created: true };
    }
    const existing = await queryRows<{ id: number }>(
      runner,
      `SELECT id FROM user_databases WHERE company_id = $1 AND origin = 'SYSTEM'`,
      [companyId],
    );
    return { id: existing[0].id, created: false };
  }

  async hasSystemDatabase(companyId: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT id FROM user_databases WHERE company_id = $1 AND origin = 'SYSTEM'`,
      [companyId],
    );
    return rows.length > 0;
  }
}
