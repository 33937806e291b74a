import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { GATEWAY_PROVIDERS, type GatewayProvider } from '../domain/gateway-config.entity';
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

/** Checked when the body names this provider (EVOLUTION when none), or when the field is sent. */
const ForEvolution = () =>
  ValidateIf((body: { provider?: string }, value: unknown) => {
    return body.provider !== 'CLOUD_API' || value !== undefined;
  });
const ForCloudApi = () =>
  ValidateIf((body: { provider?: string }, value: unknown) => {
    return body.provider === 'CLOUD_API' || value !== undefined;
  });

const GRAPH_ID = /^\d{1,64}$/;
const GRAPH_ID_MESSAGE = { message: 'deve ser o id numérico mostrado pela Meta' };
const API_VERSION = /^v\d{1,3}\.\d{1,2}$/;
const API_VERSION_MESSAGE = { message: 'deve ser uma versão da Graph API como v27.0' };
const THROUGHPUT_MESSAGE = { message: 'deve ser um número inteiro de 1 a 1000 (ou null)' };

/** The Cloud API's own fields (provider CLOUD_API), on create and on update. */
export class CloudApiFieldsDto extends InstanceLimitsDto {
  @ApiPropertyOptional({
    example: '106540352242922',
    description: 'CLOUD_API: o id do número (Phone number ID) no painel da Meta',
  })
  @ForCloudApi()
  @IsString(REQUIRED)
  @Matches(GRAPH_ID, GRAPH_ID_MESSAGE)
  phoneNumberId?: string;

  @ApiPropertyOptional({
    example: '102290129340398',
    description: 'CLOUD_API: o id da conta do WhatsApp Business (WABA), onde ficam os modelos',
  })
  @ForCloudApi()
  @IsString(REQUIRED)
  @Matches(GRAPH_ID, GRAPH_ID_MESSAGE)
  businessAccountId?: string;

  @ApiPropertyOptional({
    maxLength: 1000,
    writeOnly: true,
    description:
      'CLOUD_API: token de acesso (de preferência de usuário do sistema); nunca devolvido',
  })
  @ForCloudApi()
  @IsString(REQUIRED)
  @Matches(NOT_BLANK, REQUIRED)
  @MaxLength(1000, { message: 'deve ter no máximo 1000 caracteres' })
  accessToken?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    writeOnly: true,
    description: 'CLOUD_API: segredo do app, que assina os webhooks da Meta; nunca devolvido',
  })
  @ForCloudApi()
  @IsString(REQUIRED)
  @Matches(NOT_BLANK, REQUIRED)
  @MaxLength(200, { message: 'deve ter no máximo 200 caracteres' })
  appSecret?: string;

  @ApiPropertyOptional({
    example: 'v27.0',
    description: 'CLOUD_API: versão da Graph API; padrão v27.0',
  })
  @IsOmittable()
  @IsString(API_VERSION_MESSAGE)
  @Matches(API_VERSION, API_VERSION_MESSAGE)
  apiVersion?: string;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    example: 80,
    description: 'CLOUD_API: mensagens por segundo do número; padrão do serviço (80) quando null',
  })
  @IsOptional()
  @IsInt(THROUGHPUT_MESSAGE)
  @Min(1, THROUGHPUT_MESSAGE)
  @Max(1000, THROUGHPUT_MESSAGE)
  throughputPerSecond?: number | null;
}

export class CreateGatewayConfigDto extends CloudApiFieldsDto {
  @ApiPropertyOptional({
    enum: GATEWAY_PROVIDERS,
    default: 'EVOLUTION',
    description:
      'EVOLUTION (Evolution API v2: url, apiKey, instance) ou CLOUD_API (API oficial do WhatsApp: phoneNumberId, businessAccountId, accessToken, appSecret)',
  })
  @IsOmittable()
  @IsIn(GATEWAY_PROVIDERS, { message: 'deve ser EVOLUTION ou CLOUD_API' })
  provider?: GatewayProvider;

  @ApiProperty({ example: 'Vendas - WhatsApp principal', maxLength: 100 })
  @IsString(REQUIRED)
  @Matches(NOT_BLANK, REQUIRED)
  @MaxLength(100, MAX_100)
  name!: string;

  @ApiProperty({
    example: 'https://gw.example.com',
    maxLength: 500,
    description:
      'URL base do Evolution API v2; em CLOUD_API, a da Graph API (padrão https://graph.facebook.com)',
  })
  @ForEvolution()
  @IsString(REQUIRED_F)
  @Matches(NOT_BLANK, REQUIRED_F)
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  @IsOutboundUrl(URL_MESSAGE)
  @Matches(NO_QUERY, { message: 'não pode conter parâmetros (?) nem fragmento (#)' })
  url!: string;

  @ApiPropertyOptional({
    example: '7F3A9C2E-5D1B-4E8A-9F0C-1A2B3C4D5E6F',
    maxLength: 500,
    writeOnly: true,
    description: 'EVOLUTION (obrigatória): a chave de API',
  })
  @ForEvolution()
  @IsString(REQUIRED_F)
  @Matches(NOT_BLANK, REQUIRED_F)
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  apiKey!: string;

  @ApiPropertyOptional({
    example: 'acme-sales',
    maxLength: 100,
    description: 'EVOLUTION (obrigatória): nome (não id) da instância no gateway',
  })
  @ForEvolution()
  @IsString(REQUIRED_F)
  @Matches(NOT_BLANK, REQUIRED_F)
  @MaxLength(100, MAX_100)
  instance!: string;
}

/** Partial update: absent fields stay; null is refused like any other non-text. */
export class UpdateGatewayConfigDto extends CloudApiFieldsDto {
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

/** GET /api/gateway-configs/{id}/templates */
export class TemplatesQueryDto {
  @ApiPropertyOptional({
    type: String,
    enum: ['true', 'false'],
    description: 'true: lê a Meta agora',
  })
  @IsOmittable()
  @IsIn(['true', 'false'], { message: 'deve ser true ou false' })
  refresh?: 'true' | 'false';
}
