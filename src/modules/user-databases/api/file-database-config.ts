import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { assertSafeBody } from '../../../common/http/text-hygiene';
import { createValidationPipe, IsOmittable } from '../../../common/http/validation';
import type { FileDatabaseConfig } from '../application/file-imports.service';
import { DATA_TYPES, DataType, MAX_COLUMNS } from '../domain/column';
import { MAX_HEADER_LENGTH } from '../domain/file-headers';

const NOT_BLANK = /\S/;

export class ColumnMappingDto {
  @ApiProperty({
    example: 'Telefone',
    description: 'Nome da coluna no arquivo, como a análise mostra',
  })
  @IsString({ message: 'é obrigatório' })
  @Matches(NOT_BLANK, { message: 'é obrigatório' })
  @MaxLength(MAX_HEADER_LENGTH, { message: `deve ter no máximo ${MAX_HEADER_LENGTH} caracteres` })
  originalName!: string;

  @ApiPropertyOptional({ example: 'Telefone', description: 'Padrão: originalName' })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  displayName?: string;

  @ApiPropertyOptional({ enum: DATA_TYPES, default: 'TEXT' })
  @IsOmittable()
  @IsIn(DATA_TYPES, { message: `deve ser um de: ${DATA_TYPES.join(', ')}` })
  dataType?: DataType;

  @ApiPropertyOptional({
    default: false,
    description: 'Exatamente uma coluna deve ser a de telefone',
  })
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  isPhoneColumn?: boolean;
}

/** The JSON `config` part of POST /api/user-databases. */
export class FileDatabaseConfigDto {
  @ApiProperty({ example: 'Clientes 2026', maxLength: 100 })
  @IsString({ message: 'é obrigatório' })
  @Matches(NOT_BLANK, { message: 'é obrigatório' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  name!: string;

  @ApiPropertyOptional({ example: 'Exportado do CRM', maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  description?: string;

  @ApiProperty({
    type: [ColumnMappingDto],
    description: 'Colunas do arquivo a importar; as demais ficam de fora',
  })
  @IsArray({ message: 'é obrigatório e deve ser uma lista' })
  @ArrayMinSize(1, { message: 'deve ter ao menos 1 coluna' })
  @ArrayMaxSize(MAX_COLUMNS, { message: `deve ter no máximo ${MAX_COLUMNS} colunas` })
  @ValidateNested({ each: true })
  @Type(() => ColumnMappingDto)
  columnMappings!: ColumnMappingDto[];
}

const bodyValidation = createValidationPipe();

/**
 * The `config` part, validated by the global pipe's rules like a JSON body (unknown fields
 * refused at any depth), since that pipe never sees multipart parts.
 */
export async function parseFileDatabaseConfig(
  raw: string | undefined,
): Promise<FileDatabaseConfig> {
  if (raw === undefined) {
    throw new ValidationFailedError([['config', 'é obrigatório (parte JSON do formulário)']]);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ValidationFailedError([['config', 'deve ser um JSON válido']]);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ValidationFailedError([['config', 'deve ser um objeto JSON']]);
  }
  // As for a JSON body: an escaped NUL (\u0000) appears only now, and the validation below
  // walks the value recursively.
  assertSafeBody(json, 'config');
  const dto = (await bodyValidation.transform(json, {
    type: 'body',
    metatype: FileDatabaseConfigDto,
  })) as FileDatabaseConfigDto;
  return {
    name: dto.name.trim(),
    description: dto.description?.trim() || null,
    columnMappings: dto.columnMappings.map((m) => ({
      originalName: m.originalName.trim(),
      displayName: m.displayName?.trim() || undefined,
      dataType: m.dataType ?? 'TEXT',
      isPhoneColumn: m.isPhoneColumn ?? false,
    })),
  };
}
