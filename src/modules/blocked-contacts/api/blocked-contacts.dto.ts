import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

/** docs/API-RULES.md §7: more numbers than this in one import or check is a 400. */
export const MAX_NUMBERS_PER_REQUEST = 1000;
/** Longer inputs are not phone numbers, and an import would echo them back in failedNumbers. */
export const MAX_PHONE_INPUT_LENGTH = 50;
export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;
/** Keeps page × size inside PostgreSQL's bigint OFFSET. */
const MAX_PAGE = 1_000_000_000;

export class BlockContactDto {
  @ApiProperty({
    example: '+55 11 98765-4321',
    description: 'Qualquer formato; sem código de país recebe o DEFAULT_COUNTRY_CODE',
  })
  @IsString({ message: 'é obrigatório' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(MAX_PHONE_INPUT_LENGTH, { message: 'número de telefone inválido' })
  phoneNumber!: string;

  @ApiPropertyOptional({ example: 'Pediu para não receber mensagens', maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  reason?: string;
}

export class ImportBlockedContactsDto {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_NUMBERS_PER_REQUEST,
    example: ['5511987654321', '(11) 98765-1234', '+1 212 555 0100'],
  })
  @IsArray({ message: 'é obrigatório e deve ser uma lista de números de telefone' })
  @ArrayMinSize(1, { message: 'deve ter ao menos 1 número' })
  @ArrayMaxSize(MAX_NUMBERS_PER_REQUEST, {
    message: `deve ter no máximo ${MAX_NUMBERS_PER_REQUEST} números`,
  })
  @IsString({ each: true, message: 'cada número deve ser um texto' })
  @MaxLength(MAX_PHONE_INPUT_LENGTH, {
    each: true,
    message: `cada número deve ter no máximo ${MAX_PHONE_INPUT_LENGTH} caracteres`,
  })
  phoneNumbers!: string[];

  @ApiPropertyOptional({ example: 'Pediu para não receber mensagens', maxLength: 500 })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  reason?: string;
}

/** Query strings arrive as text; only plain integers are converted, anything else fails IsInt. */
const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;

export class ListBlockedContactsQueryDto {
  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'Página, a partir de 0' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(0, { message: 'não pode ser negativo' })
  @Max(MAX_PAGE, { message: `deve ser no máximo ${MAX_PAGE}` })
  page?: number;

  @ApiPropertyOptional({ default: DEFAULT_PAGE_SIZE, minimum: 1, maximum: MAX_PAGE_SIZE })
  @IsOptional()
  @Transform(toInteger)
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(1, { message: 'deve ser no mínimo 1' })
  @Max(MAX_PAGE_SIZE, { message: `deve ser no máximo ${MAX_PAGE_SIZE}` })
  size?: number;

  @ApiPropertyOptional({
    example: '98765',
    description: 'Parte do número; só os dígitos contam ("(11) 98765" procura 1198765)',
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(MAX_PHONE_INPUT_LENGTH, {
    message: `deve ter no máximo ${MAX_PHONE_INPUT_LENGTH} caracteres`,
  })
  @Matches(/^[\d\s+().\-/]*$/, { message: 'deve conter apenas dígitos de telefone' })
  search?: string;
}
