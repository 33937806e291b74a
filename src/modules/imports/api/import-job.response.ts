import { ApiProperty } from '@nestjs/swagger';
import {
  IMPORT_JOB_STATUSES,
  type ImportJob,
  type ImportJobStatus,
} from '../domain/import-job.entity';
import {
  RowErrorResponse,
  toRowErrorResponse,
} from '../../user-databases/api/user-database.response';

export class ImportJobAcceptedResponse {
  @ApiProperty({ example: 7 }) jobId!: number;
  @ApiProperty({ example: 'PENDING', enum: IMPORT_JOB_STATUSES }) status!: ImportJobStatus;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) submittedAt!: string;
}

export class ImportJobResponse extends ImportJobAcceptedResponse {
  @ApiProperty({ type: String, nullable: true }) startedAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) finishedAt!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'A base criada ou acrescentada' })
  databaseId!: number | null;
  @ApiProperty() totalRows!: number;
  @ApiProperty({ type: Number, nullable: true }) imported!: number | null;
  @ApiProperty({ type: Number, nullable: true }) duplicatesRemoved!: number | null;
  @ApiProperty({ type: Number, nullable: true }) invalidRows!: number | null;
  @ApiProperty({
    type: [RowErrorResponse],
    description: 'As primeiras 20 linhas inválidas e o motivo',
  })
  errors!: RowErrorResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'Motivo, quando FAILED' }) error!:
    string | null;
}

export function toImportJobAcceptedResponse(job: ImportJob): ImportJobAcceptedResponse {
  return { jobId: job.id, status: job.status, submittedAt: job.submittedAt.toISOString() };
}

export function toImportJobResponse(job: ImportJob): ImportJobResponse {
  return {
    ...toImportJobAcceptedResponse(job),
    startedAt: job.startedAt?.toISOString() ?? null,
    finishedAt: job.finishedAt?.toISOString() ?? null,
    databaseId: job.databaseId,
    totalRows: job.totalRows,
    imported: job.imported,
    duplicatesRemoved: job.duplicatesRemoved,
    invalidRows: job.invalidRows,
    errors: (job.rowErrors ?? []).map(toRowErrorResponse),
    error: job.status === 'FAILED' ? job.error : null,
  };
}
