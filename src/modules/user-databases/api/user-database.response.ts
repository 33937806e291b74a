import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { DatabaseStatistics } from '../application/user-databases.service';
import type { FileAnalysisResult, FileImportResult } from '../application/file-imports.service';
import type { ImportResult, ImportSummary } from '../application/push-imports.service';
import { DATA_TYPES, type ColumnDefinition, type DataType } from '../domain/column';
import type { RowError } from '../domain/push-import-plan';
import type { SyncSummary, UserDatabase } from '../domain/user-database.entity';
import {
  USER_DATABASE_ORIGINS,
  USER_DATABASE_STATUSES,
  type UserDatabaseOrigin,
  type UserDatabaseStatus,
} from '../domain/user-database-status';
import { ApiNullableObject } from '../../../common/http/api-nullable.decorator';

export class ColumnResponse {
  @ApiProperty({
    example: 'nome_completo',
    description: 'ASCII, snake_case, único na base; use como {nome_completo} nas mensagens',
  })
  columnName!: string;
  @ApiProperty({ example: 'Nome completo' }) displayName!: string;
  @ApiProperty({ enum: DATA_TYPES }) dataType!: DataType;
  @ApiProperty() isPhoneColumn!: boolean;
  @ApiProperty({
    description:
      'A coluna de nome: a coluna de texto chamada nome, name, nome_completo, full_name, … (primeira da lista que existir)',
  })
  isNameColumn!: boolean;
  @ApiProperty({ example: 1, description: 'Ordem da coluna, a partir de 1' }) position!: number;
}

export class SyncSummaryResponse {
  @ApiProperty({
    description: 'Entradas lidas do gateway: contatos, grupos, membros e conversas pedidos',
  })
  totalFetched!: number;
  @ApiProperty({ description: 'Registros gravados' }) processed!: number;
  @ApiProperty({ description: 'Repetições descartadas (fica a primeira)' })
  duplicatesSkipped!: number;
  @ApiProperty({
    description: 'Descartadas por não ter telefone utilizável (LID sem número, o próprio grupo)',
  })
  filteredByPhone!: number;
}

export class UserDatabaseResponse {
  @ApiProperty({ example: 42 }) id!: number;
  @ApiProperty({ example: 'Clientes 2026' }) name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ enum: USER_DATABASE_ORIGINS }) origin!: UserDatabaseOrigin;
  @ApiProperty({
    enum: [...USER_DATABASE_STATUSES, 'PROCESSING', 'ERROR'],
    description:
      'ACTIVE ou INACTIVE (toggle-status). PROCESSING e ERROR são do contrato e cabem na coluna, ' +
      'mas este serviço não os grava: importações e sincronizações são atômicas',
  })
  status!: UserDatabaseStatus;
  @ApiProperty({ example: 1520 }) rowCount!: number;
  @ApiProperty({ type: [ColumnResponse] }) columns!: ColumnResponse[];
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) updatedAt!: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Só GATEWAY: a configuração de gateway sincronizada',
  })
  configId!: number | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'Só GATEWAY' }) includeGroups!:
    boolean | null;
  @ApiProperty({ type: String, nullable: true, description: 'Só GATEWAY' }) lastSyncedAt!:
    string | null;
  @ApiNullableObject(SyncSummaryResponse, { description: 'Só GATEWAY' })
  lastSyncSummary!: SyncSummaryResponse | null;
}

export class FileDatabaseResponse extends UserDatabaseResponse {
  @ApiProperty({ description: 'Linhas ignoradas por telefone vazio ou inválido' })
  skippedRows!: number;
  @ApiProperty({ description: 'Células que não cabiam no tipo da coluna e ficaram vazias' })
  invalidValues!: number;
}

export class RowErrorResponse {
  @ApiProperty({ example: 3, description: 'Índice da linha na lista enviada, a partir de 0' })
  row!: number;
  @ApiProperty({ example: 'phoneNumber: número de telefone inválido ("123")' }) reason!: string;
}

export class ImportSummaryResponse {
  @ApiProperty() totalRows!: number;
  @ApiProperty() imported!: number;
  @ApiProperty() duplicatesRemoved!: number;
  @ApiProperty() invalidRows!: number;
  @ApiProperty({
    type: [RowErrorResponse],
    description: 'As primeiras 20 linhas inválidas e o motivo',
  })
  errors!: RowErrorResponse[];
}

export class ImportedDatabaseResponse extends UserDatabaseResponse {
  @ApiProperty({ type: ImportSummaryResponse }) importSummary!: ImportSummaryResponse;
}

export class DatabaseStatisticsResponse {
  @ApiProperty({ example: 3, description: 'Bases criadas pela empresa (contam no limite)' })
  userDatabases!: number;
  @ApiProperty({
    example: 1,
    description: 'A base SYSTEM "Contatos de campanhas" (não conta no limite)',
  })
  systemDatabases!: number;
  @ApiProperty({ example: 4 }) totalDatabases!: number;
  @ApiProperty({ example: 20, description: 'Limite do plano' }) limit!: number;
  @ApiProperty({ example: 17 }) remaining!: number;
}

export class FileAnalysisResponse {
  @ApiProperty({
    type: [String],
    example: ['Nome', 'Telefone', 'Telefone (2)'],
    description: 'Nomes a usar em originalName',
  })
  columns!: string[];
  @ApiProperty({
    example: 1520,
    description: 'Linhas com dados, menos as de telefone inválido na coluna detectada',
  })
  rowCount!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { Nome: ['Maria', 'João'], Telefone: ['11987654321'] },
  })
  sampleData!: Record<string, string[]>;
  @ApiProperty({ type: [String] }) warnings!: string[];
  @ApiProperty({ enum: ['CSV', 'XLSX'] }) fileType!: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'utf-8',
    description: 'CSV: utf-8 ou windows-1252 (Latin-1)',
  })
  encoding!: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: ';' }) delimiter!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Telefone',
    description: 'A coluna que parece ter telefones',
  })
  phoneColumn!: string | null;
}

export function toColumnResponse(column: ColumnDefinition): ColumnResponse {
  return {
    columnName: column.columnName,
    displayName: column.displayName,
    dataType: column.dataType,
    isPhoneColumn: column.isPhoneColumn,
    isNameColumn: column.isNameColumn,
    position: column.position,
  };
}

function toSyncSummaryResponse(summary: SyncSummary | null): SyncSummaryResponse | null {
  return summary
    ? {
        totalFetched: summary.totalFetched,
        processed: summary.processed,
        duplicatesSkipped: summary.duplicatesSkipped,
        filteredByPhone: summary.filteredByPhone,
      }
    : null;
}

export function toUserDatabaseResponse(database: UserDatabase): UserDatabaseResponse {
  return {
    id: database.id,
    name: database.name,
    description: database.description,
    origin: database.origin,
    status: database.status,
    rowCount: database.rowCount,
    columns: database.columns.map(toColumnResponse),
    createdAt: database.createdAt.toISOString(),
    updatedAt: database.updatedAt.toISOString(),
    configId: database.configId,
    includeGroups: database.includeGroups,
    lastSyncedAt: database.lastSyncedAt?.toISOString() ?? null,
    lastSyncSummary: toSyncSummaryResponse(database.lastSyncSummary),
  };
}

export function toFileDatabaseResponse(result: FileImportResult): FileDatabaseResponse {
  return {
    ...toUserDatabaseResponse(result.database),
    skippedRows: result.skippedRows,
    invalidValues: result.invalidValues,
  };
}

export function toRowErrorResponse(error: RowError): RowErrorResponse {
  return { row: error.row, reason: error.reason };
}

export function toImportSummaryResponse(summary: ImportSummary): ImportSummaryResponse {
  return {
    totalRows: summary.totalRows,
    imported: summary.imported,
    duplicatesRemoved: summary.duplicatesRemoved,
    invalidRows: summary.invalidRows,
    errors: summary.errors.map(toRowErrorResponse),
  };
}

export function toImportedDatabaseResponse(result: ImportResult): ImportedDatabaseResponse {
  return {
    ...toUserDatabaseResponse(result.database),
    importSummary: toImportSummaryResponse(result.summary),
  };
}

export function toDatabaseStatisticsResponse(
  stats: DatabaseStatistics,
): DatabaseStatisticsResponse {
  return {
    userDatabases: stats.userDatabases,
    systemDatabases: stats.systemDatabases,
    totalDatabases: stats.totalDatabases,
    limit: stats.limit,
    remaining: stats.remaining,
  };
}

export function toFileAnalysisResponse(result: FileAnalysisResult): FileAnalysisResponse {
  return {
    columns: result.columns,
    rowCount: result.rowCount,
    sampleData: result.sampleData,
    warnings: result.warnings,
    fileType: result.fileType,
    encoding: result.encoding,
    delimiter: result.delimiter,
    phoneColumn: result.phoneColumn,
  };
}
