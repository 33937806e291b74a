import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { IsOmittable } from '../../../common/http/validation';
import { IsOutboundUrl } from '../../../common/outbound/is-outbound-url.decorator';

const REQUIRED = { message: 'é obrigatório' };
const REQUIRED_F = { message: 'é obrigatória' };
const NOT_BLANK = /\S/;
const MAX_100 = { message: 'deve ter no máximo 100 caracteres' };
const URL_MESSAGE = { message: 'deve ser uma URL http:// ou https:// válida, sem usuário e senha' };
/** Routes are appended to the base URL, so a query or fragment there would be lost. */
const NO_QUERY = /^[^?#]*$/;

/** Delivery tracking, on create and on update. */
export class DeliveryTrackingDto {
  @ApiPropertyOptional({
    default: false,
    description:
      'Ouvir o WhatsApp: registra no gateway o webhook deste serviço (recibos de entrega e leitura, descadastro por resposta, estado da instância). PUBLIC_BASE_URL precisa ser alcançável pelo gateway',
  })
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  trackDelivery?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'Com trackDelivery: substitui o webhook que a instância já envia para outro endereço (a instância tem um só)',
  })
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  replaceGatewayWebhook?: boolean;
}

const LIMIT_MESSAGE = { message: 'deve ser um número inteiro de 1 a 100000 (ou null para nenhum)' };

/**
 * What keeps the instance's number safe (docs/API-RULES.md §3): a daily limit and a warm-up.
 * On update, absent fields stay and null removes the limit.
 */
export class InstanceLimitsDto extends DeliveryTrackingDto {
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 1000,
    description: 'Mensagens por dia local (APP_TIMEZONE) nesta instância, somando todos os envios',
  })
  @IsOptional()
  @IsInt(LIMIT_MESSAGE)
  @Min(1, LIMIT_MESSAGE)
  @Max(100_000, LIMIT_MESSAGE)
  dailyLimit?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 50,
    description:
      'Aquecimento: mensagens permitidas no dia do primeiro envio da instância; cresce warmupGrowthPercent a cada dia e limita antes de dailyLimit',
  })
  @IsOptional()
  @IsInt(LIMIT_MESSAGE)
  @Min(1, LIMIT_MESSAGE)
  @Max(100_000, LIMIT_MESSAGE)
  warmupStartPerDay?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 20,
    description: 'Crescimento diário do aquecimento, em %; padrão 20',
  })
  @IsOptional()
  @IsInt({ message: 'deve ser um número inteiro de 0 a 100' })
  @Min(0, { message: 'deve ser um número inteiro de 0 a 100' })
  @Max(100, { message: 'deve ser um número inteiro de 0 a 100' })
  warmupGrowthPercent?: number | null;
}

export class CreateGatewayConfigDto extends InstanceLimitsDto {
  @ApiProperty({ example: 'Vendas - WhatsApp principal', maxLength: 100 })
  @IsString(REQUIRED)
  @Matches(NOT_BLANK, REQUIRED)
  @MaxLength(100, MAX_100)
  name!: string;

  @ApiProperty({
    example: 'https://gw.example.com',
    maxLength: 500,
    description: 'URL base do Evolution API v2',
  })
  @IsString(REQUIRED_F)
  @Matches(NOT_BLANK, REQUIRED_F)
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  @IsOutboundUrl(URL_MESSAGE)
  @Matches(NO_QUERY, { message: 'não pode conter parâmetros (?) nem fragmento (#)' })
  url!: string;

  @ApiProperty({ example: '7F3A9C2E-5D1B-4E8A-9F0C-1A2B3C4D5E6F', maxLength: 500, writeOnly: true })
  @IsString(REQUIRED_F)
  @Matches(NOT_BLANK, REQUIRED_F)
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  apiKey!: string;

  @ApiProperty({
    example: 'acme-sales',
    maxLength: 100,
    description: 'Nome (não id) da instância no gateway',
  })
  @IsString(REQUIRED_F)
  @Matches(NOT_BLANK, REQUIRED_F)
  @MaxLength(100, MAX_100)
  instance!: string;
}

/** Partial update: absent fields stay; null is refused like any other non-text. */
export class UpdateGatewayConfigDto extends InstanceLimitsDto {
  @ApiPropertyOptional({ example: 'Vendas - WhatsApp reserva', maxLength: 100 })
  @IsOmittable()
  @IsString({ message: 'deve ser um texto' })
  @Matches(NOT_BLANK, { message: 'não pode ser vazio' })
  @MaxLength(100, MAX_100)
  name?: string;

  @ApiPropertyOptional({ example: 'https://gw2.example.com', maxLength: 500 })
  @IsOmittable()
  @IsString({ message: 'deve ser um texto' })
  @Matches(NOT_BLANK, { message: 'não pode ser vazia' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  @IsOutboundUrl(URL_MESSAGE)
  @Matches(NO_QUERY, { message: 'não pode conter parâmetros (?) nem fragmento (#)' })
  url?: string;

  @ApiPropertyOptional({ maxLength: 500, writeOnly: true })
  @IsOmittable()
  @IsString({ message: 'deve ser um texto' })
  @Matches(NOT_BLANK, { message: 'não pode ser vazia' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  apiKey?: string;

  @ApiPropertyOptional({ example: 'acme-support', maxLength: 100 })
  @IsOmittable()
  @IsString({ message: 'deve ser um texto' })
  @Matches(NOT_BLANK, { message: 'não pode ser vazia' })
  @MaxLength(100, MAX_100)
  instance?: string;
}
