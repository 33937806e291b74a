import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { Metrics } from '../../../common/metrics/metrics';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import type { ImportKind, RowError } from '../domain/push-import-plan';
import type { UserDatabase } from '../domain/user-database.entity';
import { PlannedPushImport, PushImportPlanner } from './ports/push-import-planner';
import { RecordBatches } from '../infrastructure/record-batches.repository';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';
import { LargeDatabaseIndexing } from './large-database-indexing';
import { UserDatabasesService } from './user-databases.service';

/** How a push import's rows are taken (docs/API-RULES.md §6). */
export interface ContactImportOptions {
  kind: ImportKind;
  name: string | null;
  description: string | null;
  dedupe: boolean;
  databaseId: number | null;
}

/** A push import as a request carries it and a job's payload keeps it. */
export interface ContactImportRequest extends ContactImportOptions {
  rows: unknown[];
}

export interface ImportSummary {
  totalRows: number;
  imported: number;
  duplicatesRemoved: number;
  invalidRows: number;
  errors: RowError[];
}

export interface ImportResult {
  database: UserDatabase;
  summary: ImportSummary;
}

/**
 * Push imports into databases: the rows of a request become a new PUSH_IMPORT database, or
 * are appended to one of the caller's databases (databaseId). Either way in one transaction,
 * so a request or a job is imported whole or not at all. Exported for the imports module,
 * which owns the requests and the async jobs.
 */
@Injectable()
export class PushImports {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly recordBatches: RecordBatches,
    private readonly planner: PushImportPlanner,
    private readonly userDatabases: UserDatabasesService,
    private readonly databases: UserDatabasesRepository,
    private readonly indexing: LargeDatabaseIndexing,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {}

  /** The synchronous import (201). */
  async importNow(companyId: number, request: ContactImportRequest): Promise<ImportResult> {
    const rowsJson = JSON.stringify(request.rows);
    const result = await this.unitOfWork.run((tx) => this.run(tx, companyId, request, rowsJson));
    await this.afterCommit(result, 'push');
    return result;
  }

  /** Follow-up of a committed import: the request's (push), or a job's (push_async). */
  afterCommit(result: ImportResult, kind: 'push' | 'push_async'): Promise<void> {
    this.metrics.countImportedRows(kind, result.summary.imported);
    return this.indexing.afterCommit(result.summary.imported, result.database.rowCount);
  }

  /**
   * What can be refused before an import is queued: another company's or a read-only
   * databaseId, or the plan's limit for a new database.
   */
  async assertCanReceive(companyId: number, databaseId: number | null): Promise<void> {
    if (databaseId === null) {
      await this.userDatabases.assertBelowLimit(companyId);
    } else {
      (await this.databases.findOwnedOrFail(companyId, databaseId)).assertWritable();
    }
  }

  /**
   * The import itself, in the caller's transaction (the request's, or the job worker's): the
   * planner turns `rowsJson` (the rows as a JSON array) into records on another thread while
   * this one writes the batches it has finished.
   */
  async run(
    tx: Transaction,
    companyId: number,
    options: ContactImportOptions,
    rowsJson: string,
  ): Promise<ImportResult> {
    const now = this.clock.now();
    const existing =
      options.databaseId === null
        ? null
        : await this.databases.lockOwned(tx, companyId, options.databaseId);
    existing?.assertWritable();
    const plan = await this.planner.plan({
      kind: options.kind,
      rowsJson,
      dedupe: options.dedupe,
      defaultCountryCode: this.config.defaultCountryCode,
      existingColumns: existing?.columns,
    });
    const database =
      existing ??
      (await this.userDatabases.createWithinLimit(tx, {
        companyId,
        name: options.name ?? this.defaultName(now),
        description: options.description,
        origin: 'PUSH_IMPORT',
        columns: plan.columns,
      }));
    const { imported, built } = await this.write(
      tx,
      database,
      plan,
      options.dedupe && existing !== null,
      now,
    );
    await this.databases.recordRowsAdded(
      tx,
      database.id,
      imported,
      now,
      existing && plan.addedColumns.length > 0 ? plan.columns : undefined,
    );
    const updated = await this.databases.lockOwned(tx, companyId, database.id);
    await this.indexing.onLoaded(tx, database.id, updated.rowCount);
    const tally = plan.tally();
    return {
      database: updated,
      summary: {
        totalRows: tally.totalRows,
        imported,
        // Phones repeated in the request, and (appending with dedupe) phones the database had.
        duplicatesRemoved: tally.duplicatesRemoved + (built - imported),
        invalidRows: tally.invalidRows,
        errors: tally.rowErrors,
      },
    };
  }

  /** Writes the plan's batches as they come: how many records were built, and inserted. */
  private async write(
    tx: Transaction,
    database: UserDatabase,
    plan: PlannedPushImport,
    skipExistingPhones: boolean,
    now: Date,
  ): Promise<{ imported: number; built: number }> {
    const writer = this.recordBatches.open(tx, {
      databaseId: database.id,
      companyId: database.companyId,
      now,
      skipExistingPhones,
    });
    for await (const batch of plan.batches) {
      await writer.writePrepared(batch);
    }
    return { imported: await writer.finish(), built: plan.tally().recordCount };
  }

  /** "Importação 22/11/2026 14:05:09", in APP_TIMEZONE. */
  private defaultName(now: Date): string {
    return `Importação ${DateTime.fromJSDate(now).setZone(this.config.appTimezone).toFormat('dd/MM/yyyy HH:mm:ss')}`;
  }
}
