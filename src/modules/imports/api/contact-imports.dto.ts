import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  registerDecorator,
  ValidationArguments,
} from 'class-validator';
import { IsOmittable } from '../../../common/http/validation';
import { MAX_PUSH_ROWS } from '../../user-databases/domain/push-import-plan';
import {
  OptionalDatabaseDescription,
  OptionalDatabaseId,
  OptionalDatabaseName,
} from '../../user-databases/api/database-fields.dto';

const ROWS_LIMIT = {
  message: `deve ter no máximo ${MAX_PUSH_ROWS} linhas por requisição; envie em lotes com databaseId`,
};

/** Fields shared by both push imports. Items are checked row by row by the import (invalidRows), not here. */
export class ImportOptionsDto {
  @OptionalDatabaseName({
    example: 'Clientes do CRM',
    description: 'Padrão: "Importação <data e hora>"',
  })
  name?: string;

  @OptionalDatabaseDescription()
  description?: string;

  @ApiPropertyOptional({
    default: true,
    description:
      'Remove telefones repetidos (fica o primeiro); ao acrescentar a uma base, também os que ela já tem',
  })
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  dedupe?: boolean;

  @OptionalDatabaseId('Acrescenta as linhas a esta base da empresa em vez de criar outra')
  databaseId?: number;
}

/**
 * Every contact is an object with a phoneNumber (a non-blank text); the message names the first
 * item that is not. A phone that is present but invalid is the import's to count (invalidRows).
 */
function EachContactHasPhoneNumber(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'eachContactHasPhoneNumber',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => firstContactWithoutPhone(value) === null,
        defaultMessage: (args: ValidationArguments) => {
          const index = firstContactWithoutPhone(args.value);
          return `item ${index}: phoneNumber é obrigatório e deve ser um texto`;
        },
      },
    });
}

function firstContactWithoutPhone(value: unknown): number | null {
  if (!Array.isArray(value)) {
    return null;
  }
  const index = value.findIndex((item: unknown) => {
    const phone =
      typeof item === 'object' && item !== null
        ? (item as { phoneNumber?: unknown }).phoneNumber
        : undefined;
    return typeof phone !== 'string' || phone.trim() === '';
  });
  return index === -1 ? null : index;
}

export class ContactsImportDto extends ImportOptionsDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    maxItems: MAX_PUSH_ROWS,
    example: [{ phoneNumber: '+55 11 98765-4321', name: 'Maria Souza', cidade: 'São Paulo' }],
    description: 'Cada contato tem phoneNumber; outras chaves viram colunas de texto',
  })
  @IsArray({ message: 'é obrigatório e deve ser uma lista' })
  @ArrayMinSize(1, { message: 'deve ter ao menos 1 contato' })
  @ArrayMaxSize(MAX_PUSH_ROWS, ROWS_LIMIT)
  @EachContactHasPhoneNumber()
  contacts!: unknown[];
}

export class GenericImportDto extends ImportOptionsDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    maxItems: MAX_PUSH_ROWS,
    example: [{ telefone: '11987654321', nome: 'Maria', plano: 'ouro' }],
    description:
      'Objetos coluna → valor. A coluna de telefone é a primeira chave reconhecida, nesta ordem: ' +
      'phone_number/phoneNumber, phone, telefone, celular, whatsapp, …',
  })
  @IsArray({ message: 'é obrigatório e deve ser uma lista' })
  @ArrayMinSize(1, { message: 'deve ter ao menos 1 linha' })
  @ArrayMaxSize(MAX_PUSH_ROWS, ROWS_LIMIT)
  rows!: unknown[];
}

export class ImportModeQueryDto {
  @ApiPropertyOptional({
    enum: ['true', 'false'],
    default: 'false',
    description: 'true: responde 202 com o job',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'deve ser true ou false' })
  async?: 'true' | 'false';
}
