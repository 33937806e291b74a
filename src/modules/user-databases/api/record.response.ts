import { ApiProperty } from '@nestjs/swagger';
import type { RecordsPage } from '../application/records.service';
import type { ColumnDefinition } from '../domain/column';
import { completeValues } from '../domain/stored-record';
import type { StoredValue } from '../domain/value-coercion';
import type { RecordRow } from '../domain/record-page';

export class RecordResponse {
  @ApiProperty({ example: 1001 }) id!: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: {
      nome: 'Maria Souza',
      telefone: '5511987654321',
      idade: 31,
      cliente_desde: '2024-03-01',
    },
    description: 'Todas as colunas da base, na ordem; null onde o registro não tem valor',
  })
  values!: Record<string, StoredValue | null>;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-22T12:00:00.000Z' }) updatedAt!: string;
}

export class RecordsPageResponse {
  @ApiProperty({ type: [RecordResponse] }) content!: RecordResponse[];
  @ApiProperty({ example: 1520 }) totalElements!: number;
  @ApiProperty({ example: 61 }) totalPages!: number;
  @ApiProperty({ example: 25 }) size!: number;
  @ApiProperty({ example: 0, description: 'Página atual, a partir de 0' }) number!: number;
}

export function toRecordResponse(
  columns: readonly ColumnDefinition[],
  record: RecordRow,
): RecordResponse {
  return {
    id: Number(record.id),
    values: completeValues(columns, record.values),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

export function toRecordsPageResponse(page: RecordsPage): RecordsPageResponse {
  return {
    content: page.records.map((record) => toRecordResponse(page.database.columns, record)),
    totalElements: page.totalElements,
    totalPages: Math.ceil(page.totalElements / page.size),
    size: page.size,
    number: page.page,
  };
}
