import { UnitOfWork } from '../../../common/persistence/transaction';
import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { Metrics } from '../../../common/metrics/metrics';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { ColumnDefinition, ColumnRequest, defineColumns } from '../domain/column';
import { FileAnalysis, FileAnalyzer } from '../domain/file-analysis';
import { readHeaders } from '../domain/file-headers';
import { storedRecordOf } from '../domain/stored-record';
import type { UserDatabase } from '../domain/user-database.entity';
import { UnreadableFileError } from '../domain/user-database.errors';
import { coerceValue, StoredValue } from '../domain/value-coercion';
import { RecordBatches, RecordBatchWriter } from '../infrastructure/record-batches.repository';
import { TimeSlicer } from '../../../common/work/time-slicer';
import { TabularFiles } from './ports/tabular-files';
import type { TabularKind } from './ports/tabular-files';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';
import type { UploadedForm } from './uploaded-file';
import { LargeDatabaseIndexing } from './large-database-indexing';
import { UserDatabasesService } from './user-databases.service';

export interface FileDatabaseConfig {
  name: string;
  description: string | null;
  columnMappings: ColumnRequest[];
}

export interface FileAnalysisResult extends FileAnalysis {
  fileType: TabularKind;
  encoding: string | null;
  delimiter: string | null;
}

export interface FileImportResult {
  database: UserDatabase;
  /** Rows left out because their phone was empty or invalid. */
  skippedRows: number;
  /** Cells that did not fit their column's type and were stored empty. */
  invalidValues: number;
}

type UploadedFile = NonNullable<UploadedForm['file']>;

/** POST /api/user-databases/analyze and POST /api/user-databases (multipart). */
@Injectable()
export class FileImportsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly recordBatches: RecordBatches,
    private readonly tabularFiles: TabularFiles,
    private readonly userDatabases: UserDatabasesService,
    private readonly databases: UserDatabasesRepository,
    private readonly indexing: LargeDatabaseIndexing,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {}

  async analyze(file: UploadedForm['file']): Promise<FileAnalysisResult> {
    const uploaded = requireFile(file);
    const source = await this.tabularFiles.open(uploaded.path, uploaded.originalName);
    const rows = source.rows();
    try {
      const headers = await readHeaderRow(rows);
      const analyzer = new FileAnalyzer(
        headers.names,
        headers.warnings,
        this.config.defaultCountryCode,
      );
      for await (const cells of rows) {
        analyzer.add(cells);
      }
      return {
        ...analyzer.result(),
        fileType: source.kind,
        encoding: source.encoding,
        delimiter: source.delimiter,
      };
    } finally {
      await rows.return(undefined);
    }
  }

  /**
   * Streams the file into a new database, batch by batch, in one transaction: the database
   * appears complete (201, ACTIVE) or not at all, also when the process dies mid-way.
   */
  async createFromFile(
    companyId: number,
    file: UploadedForm['file'],
    config: FileDatabaseConfig,
  ): Promise<FileImportResult> {
    const upload = requireFile(file);
    assertOnePhoneColumn(config.columnMappings);
    await this.userDatabases.assertBelowLimit(companyId);
    const source = await this.tabularFiles.open(upload.path, upload.originalName);
    const rows = source.rows();
    try {
      const headers = await readHeaderRow(rows);
      const cellIndexes = mappedIndexes(config.columnMappings, headers.names);
      const columns = defineColumns(config.columnMappings);
      const result = await this.unitOfWork.run(async (tx) => {
        const database = await this.userDatabases.createWithinLimit(tx, {
          companyId,
          name: config.name,
          description: config.description,
          origin: 'UPLOAD',
          columns,
        });
        const now = this.clock.now();
        const writer = this.recordBatches.open(tx, {
          databaseId: database.id,
          companyId,
          now,
        });
        const counts = await this.writeRows(rows, columns, cellIndexes, writer);
        const written = await writer.finish();
        await this.databases.recordRowsAdded(tx, database.id, written, now);
        await this.indexing.onLoaded(tx, database.id, written);
        database.rowCount = written;
        database.updatedAt = now;
        return { database, ...counts };
      });
      this.metrics.countImportedRows('file', result.database.rowCount);
      await this.indexing.afterCommit(result.database.rowCount, result.database.rowCount);
      return result;
    } finally {
      await rows.return(undefined);
    }
  }

  private async writeRows(
    rows: AsyncIterable<string[]>,
    columns: readonly ColumnDefinition[],
    cellIndexes: readonly number[],
    writer: RecordBatchWriter,
  ): Promise<{ skippedRows: number; invalidValues: number }> {
    const countryCode = this.config.defaultCountryCode;
    let skippedRows = 0;
    let invalidValues = 0;
    // A 64 KB chunk of a file is about 700 rows: parsed and coerced in one go, they would
    // hold the event loop for tens of milliseconds.
    const slicer = new TimeSlicer();
    for await (const cells of rows) {
      await slicer.pause();
      const values: Record<string, StoredValue | null> = {};
      let skipped = false;
      for (let i = 0; i < columns.length; i += 1) {
        const column = columns[i];
        const coerced = coerceValue(column, cells[cellIndexes[i]] ?? '', countryCode, 'lenient');
        if (column.isPhoneColumn && (!coerced.ok || coerced.value === null)) {
          skipped = true;
          break;
        }
        if (!coerced.ok) {
          invalidValues += 1;
        }
        values[column.columnName] = coerced.ok ? coerced.value : null;
      }
      if (skipped) {
        skippedRows += 1;
        continue;
      }
      writer.push(storedRecordOf(columns, values));
      if (writer.isFull) {
        await writer.flush();
      }
    }
    return { skippedRows, invalidValues };
  }
}

function requireFile(file: UploadedForm['file']): UploadedFile {
  if (!file) {
    throw new ValidationFailedError([['file', 'é obrigatório (CSV ou XLSX)']]);
  }
  return file;
}

async function readHeaderRow(
  rows: AsyncGenerator<string[]>,
): Promise<{ names: string[]; warnings: string[] }> {
  const first = await rows.next();
  if (first.done) {
    throw new UnreadableFileError('O arquivo não tem linhas');
  }
  const headers = readHeaders(first.value);
  if ('error' in headers) {
    throw new UnreadableFileError(headers.error);
  }
  return headers;
}

function assertOnePhoneColumn(mappings: readonly ColumnRequest[]): void {
  const phones = mappings.filter((m) => m.isPhoneColumn).length;
  if (phones !== 1) {
    throw new ValidationFailedError([
      [
        'columnMappings',
        `deve ter exatamente uma coluna com isPhoneColumn verdadeiro (tem ${phones})`,
      ],
    ]);
  }
  const seen = new Set<string>();
  const errors: Array<[string, string]> = [];
  mappings.forEach((mapping, i) => {
    const key = mapping.originalName.trim();
    if (seen.has(key)) {
      errors.push([`columnMappings[${i}].originalName`, 'coluna repetida']);
    }
    seen.add(key);
  });
  if (errors.length > 0) {
    throw new ValidationFailedError(errors);
  }
}

/** Where each mapped column is in the file; originalName is a header as analysis names it. */
function mappedIndexes(mappings: readonly ColumnRequest[], names: readonly string[]): number[] {
  const errors: Array<[string, string]> = [];
  const indexes = mappings.map((mapping, i) => {
    const index = names.indexOf(mapping.originalName.trim());
    if (index < 0) {
      errors.push([
        `columnMappings[${i}].originalName`,
        `a coluna "${mapping.originalName}" não está no arquivo`,
      ]);
    }
    return index;
  });
  if (errors.length > 0) {
    throw new ValidationFailedError(errors);
  }
  return indexes;
}
