import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

/*
 * The optional fields that several requests share to name a database or point at one. The
 * decorators are listed bottom-up, the order in which stacked decorators apply: class-validator
 * reports the first-written check (the type check) when several fail (see flattenValidationErrors).
 */

const ID = { message: 'deve ser um id válido' };

/** `databaseId`: one of the company's databases (ownership is checked by the service). */
export const OptionalDatabaseId = (description: string): PropertyDecorator =>
  applyDecorators(
    Max(2_147_483_647, ID),
    Min(1, ID),
    IsInt({ message: 'deve ser um número inteiro' }),
    IsOptional(),
    ApiPropertyOptional({ example: 42, description }),
  );

/** `name` of a database: up to 100 characters, not blank. */
export const OptionalDatabaseName = (
  api: Pick<ApiPropertyOptions, 'example' | 'description'>,
): PropertyDecorator =>
  applyDecorators(
    MaxLength(100, { message: 'deve ter no máximo 100 caracteres' }),
    Matches(/\S/, { message: 'não pode ser vazio' }),
    IsString({ message: 'deve ser um texto' }),
    IsOptional(),
    ApiPropertyOptional({ ...api, maxLength: 100 }),
  );

/** `description` of a database: up to 500 characters. */
export const OptionalDatabaseDescription = (): PropertyDecorator =>
  applyDecorators(
    MaxLength(500, { message: 'deve ter no máximo 500 caracteres' }),
    IsString({ message: 'deve ser um texto' }),
    IsOptional(),
    ApiPropertyOptional({ maxLength: 500 }),
  );
