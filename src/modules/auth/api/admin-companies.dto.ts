import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { IsOmittable } from '../../../common/http/validation';
import { REGISTRATION_TYPES, RegistrationType } from '../domain/registration-type';

const BOOLEAN = { message: 'deve ser verdadeiro ou falso' };
const INTEGER = { message: 'deve ser um número inteiro' };

/** undefined leaves a field alone; null on a limit goes back to the system default. */
export class UpdateCompanyAdminDto {
  @ApiPropertyOptional() @IsOmittable() @IsBoolean(BOOLEAN) isActive?: boolean;

  @ApiPropertyOptional({ enum: REGISTRATION_TYPES })
  @IsOmittable()
  @IsIn(REGISTRATION_TYPES, { message: `deve ser um de: ${REGISTRATION_TYPES.join(', ')}` })
  registrationType?: RegistrationType;

  @ApiPropertyOptional({ nullable: true, type: Number, example: 120 })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @IsInt(INTEGER)
  @Min(1, { message: 'deve ser no mínimo 1' })
  @Max(1_000_000, { message: 'deve ser no máximo 1000000' })
  rateLimitPerMinute?: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, example: 5000 })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @IsInt(INTEGER)
  @Min(1, { message: 'deve ser no mínimo 1' })
  @Max(100_000_000, { message: 'deve ser no máximo 100000000' })
  rateLimitPerHour?: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, example: 10 })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @IsInt(INTEGER)
  @Min(0, { message: 'não pode ser negativo' })
  @Max(1_000_000, { message: 'deve ser no máximo 1000000' })
  campaignCreationsPerHour?: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, example: 10 })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @IsInt(INTEGER)
  @Min(0, { message: 'não pode ser negativo' })
  @Max(100_000, { message: 'deve ser no máximo 100000' })
  automationLimit?: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, example: 20 })
  @ValidateIf((_o, v) => v !== undefined && v !== null)
  @IsInt(INTEGER)
  @Min(0, { message: 'não pode ser negativo' })
  @Max(100_000, { message: 'deve ser no máximo 100000' })
  databaseLimit?: number | null;

  @ApiPropertyOptional() @IsOmittable() @IsBoolean(BOOLEAN) automationsEnabled?: boolean;
  @ApiPropertyOptional() @IsOmittable() @IsBoolean(BOOLEAN) blockedContactsEnabled?: boolean;
  @ApiPropertyOptional() @IsOmittable() @IsBoolean(BOOLEAN) pollCampaignsEnabled?: boolean;
}

const TEXT = { message: 'deve ser um texto' };
const MAX_100 = { message: 'deve ter no máximo 100 caracteres' };
const MAX_255 = { message: 'deve ter no máximo 255 caracteres' };
const DATE_TIME = { message: 'deve ser uma data-hora ISO 8601' };

/** The subscription fields of docs/API-RULES.md §2, as a payment checkout would write them. */
export class ReplaceSubscriptionDto {
  @ApiPropertyOptional({ example: '2c938084726fca480172750000000000' })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(100, MAX_100)
  subscriptionId?: string;
  @ApiPropertyOptional() @IsOptional() @IsString(TEXT) @MaxLength(100, MAX_100) payerId?: string;
  @ApiPropertyOptional({ example: 'active' })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(40, { message: 'deve ter no máximo 40 caracteres' })
  subscriptionStatus?: string;
  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(255, MAX_255)
  subscriptionReason?: string;
  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(255, MAX_255)
  externalReference?: string;
  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(100, MAX_100)
  preapprovalPlanId?: string;
  @ApiPropertyOptional({ example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, DATE_TIME)
  subscriptionStartDate?: string;
  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsISO8601({ strict: true }, DATE_TIME)
  nextPaymentDate?: string;
  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(100, MAX_100)
  collectorId?: string;
  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  subscriptionInitPoint?: string;
  @ApiPropertyOptional({ example: '99.90' })
  @IsOptional()
  @Matches(/^\d{1,12}(\.\d{1,2})?$/, { message: 'deve ser um valor decimal como 99.90' })
  transactionAmount?: string;
  @ApiPropertyOptional({ example: 'monthly' })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(40, { message: 'deve ter no máximo 40 caracteres' })
  frequencyType?: string;
}
