import { UnitOfWork } from '../../../common/persistence/transaction';
import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import type { ColumnDefinition } from '../domain/column';
import { searchFilterOf } from '../domain/search-text';
import { StoredRecord, storedRecordOf } from '../domain/stored-record';
import type { UserDatabase } from '../domain/user-database.entity';
import { USER_DATABASE_RECORD } from '../domain/user-database.errors';
import { coerceValue, StoredValue } from '../domain/value-coercion';
import type { RecordRow, RecordSort, SortDirection } from '../domain/record-page';
import { RecordsRepository } from '../infrastructure/records.repository';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';
import { LargeDatabaseIndexing } from './large-database-indexing';

export interface RecordsPageQuery {
  page: number;
  size: number;
  sortBy: string;
  sortDirection: SortDirection;
  search: string;
}

export interface RecordsPage {
  database: UserDatabase;
  records: RecordRow[];
  totalElements: number;
  page: number;
  size: number;
}

/** docs/API-RULES.md §6: a database's records. Every operation checks the database first (404/403). */
@Injectable()
export class RecordsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly databases: UserDatabasesRepository,
    private readonly records: RecordsRepository,
    private readonly indexing: LargeDatabaseIndexing,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async list(companyId: number, databaseId: number, query: RecordsPageQuery): Promise<RecordsPage> {
    const database = await this.databases.findOwnedOrFail(companyId, databaseId);
    const sort = sortOf(database, query.sortBy);
    const search = searchFilterOf(query.search);
    await this.indexing.onSorted(database, sort);
    const offset = query.page * query.size;
    const records = await this.records.page(companyId, databaseId, {
      sort,
      direction: query.sortDirection,
      search,
      offset,
      limit: query.size,
    });
    const totalElements = !search
      ? database.rowCount
      : (totalFromPage(offset, query.size, records.length) ??
        (await this.records.countMatching(companyId, databaseId, search)));
    return { database, records, totalElements, page: query.page, size: query.size };
  }

  async get(
    companyId: number,
    databaseId: number,
    recordId: string,
  ): Promise<{ database: UserDatabase; record: RecordRow }> {
    const database = await this.databases.findOwnedOrFail(companyId, databaseId);
    const record = await this.records.findOne(database.id, recordId);
    if (!record) {
      throw new ResourceNotFoundError(USER_DATABASE_RECORD);
    }
    return { database, record };
  }

  async create(
    companyId: number,
    databaseId: number,
    values: Record<string, unknown>,
  ): Promise<{ database: UserDatabase; record: RecordRow }> {
    await this.writableOrFail(companyId, databaseId);
    return this.unitOfWork.run(async (tx) => {
      const database = await this.databases.lockOwned(tx, companyId, databaseId);
      const stored = this.validated(database.columns, {}, values, 'create');
      const now = this.clock.now();
      const record = await this.records.insertOne(tx, { databaseId, companyId }, stored, now);
      await this.databases.recordRowsAdded(tx, databaseId, 1, now);
      return { database, record };
    });
  }

  /** Columns left out keep their value; null clears one. */
  async update(
    companyId: number,
    databaseId: number,
    recordId: string,
    values: Record<string, unknown>,
  ): Promise<{ database: UserDatabase; record: RecordRow }> {
    const database = await this.writableOrFail(companyId, databaseId);
    return this.unitOfWork.run(async (tx) => {
      const current = await this.records.findOne(databaseId, recordId, tx);
      if (!current) {
        throw new ResourceNotFoundError(USER_DATABASE_RECORD);
      }
      const stored = this.validated(database.columns, current.values, values, 'update');
      const record = await this.records.update(tx, databaseId, recordId, stored, this.clock.now());
      return { database, record };
    });
  }

  async delete(companyId: number, databaseId: number, recordId: string): Promise<void> {
    await this.writableOrFail(companyId, databaseId);
    await this.unitOfWork.run(async (tx) => {
      await this.databases.lockOwned(tx, companyId, databaseId);
      if (!(await this.records.delete(tx, databaseId, recordId))) {
        throw new ResourceNotFoundError(USER_DATABASE_RECORD);
      }
      await this.databases.recordRowsAdded(tx, databaseId, -1, this.clock.now());
    });
  }

  /** The company's database, refused before any transaction when it is read-only (SYSTEM). */
  private async writableOrFail(companyId: number, databaseId: number): Promise<UserDatabase> {
    const database = await this.databases.findOwnedOrFail(companyId, databaseId);
    database.assertWritable();
    return database;
  }

  /** Keys must be columns; values must fit their column; the phone column cannot be left empty. */
  private validated(
    columns: readonly ColumnDefinition[],
    current: Readonly<Record<string, StoredValue>>,
    changes: Record<string, unknown>,
    mode: 'create' | 'update',
  ): StoredRecord {
    const errors: Array<[string, string]> = [];
    const merged: Record<string, StoredValue | null> = { ...current };
    for (const [key, raw] of Object.entries(changes)) {
      const column = columns.find((c) => c.columnName === key);
      if (!column) {
        errors.push([`values.${key}`, 'coluna desconhecida nesta base']);
        continue;
      }
      const coerced = coerceValue(column, raw, this.config.defaultCountryCode, 'strict');
      if (coerced.ok) {
        merged[key] = coerced.value;
      } else {
        errors.push([`values.${key}`, coerced.reason]);
      }
    }
    const phoneColumn = columns.find((c) => c.isPhoneColumn);
    const phoneKey = phoneColumn?.columnName;
    if (
      phoneKey &&
      (merged[phoneKey] ?? null) === null &&
      !errors.some(([field]) => field === `values.${phoneKey}`)
    ) {
      if (mode === 'create' || phoneKey in changes) {
        errors.push([`values.${phoneKey}`, 'é obrigatório']);
      }
    }
    if (errors.length > 0) {
      throw new ValidationFailedError(errors);
    }
    return storedRecordOf(columns, merged);
  }
}

/**
 * A page that is not full ends the matches, so it tells their total without a count, which
 * for a search costs a second pass over the trigram index (most searches fit one page).
 */
function totalFromPage(offset: number, size: number, found: number): number | null {
  return found < size && (found > 0 || offset === 0) ? offset + found : null;
}

function sortOf(database: UserDatabase, sortBy: string): RecordSort {
  if (sortBy === 'id' || sortBy === 'created_at' || sortBy === 'updated_at') {
    return { kind: sortBy };
  }
  const column = database.columns.find((c) => c.columnName === sortBy);
  if (!column) {
    throw new ValidationFailedError([
      [
        'sortBy',
        `deve ser id, created_at, updated_at ou uma coluna da base (${database.columns.map((c) => c.columnName).join(', ')})`,
      ],
    ]);
  }
  return { kind: 'column', columnName: column.columnName, numeric: column.dataType === 'NUMBER' };
}
