import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  ValidateNested,
  ValidationArguments,
} from 'class-validator';

import { CampaignTemplateDto } from './campaign-template.dto';
import { SendingWindowDto } from '../../../common/time/sending-window.dto';
import { MAX_POOL_SENDERS } from '../domain/sender-pool';

/** How the pause defaults differ by provider (campaign-input.ts, storedIntervals). */
const INTERVAL_DEFAULTS =
  'Padrão 5–12 s; numa configuração da API oficial (CLOUD_API) sem intervalos informados, 0: o número envia no ritmo do seu throughputPerSecond';
export const MAX_INTERVAL_SECONDS = 3600;
/** A long pause lasts at most a day; a campaign that should wait longer is paused by a person. */
export const MAX_LONG_PAUSE_SECONDS = 86_400;

/** How message, caption and poll question texts are written (docs/API-RULES.md §4). */
export const MESSAGE_TEXT_DESCRIPTION =
  'Variáveis: {PrimeiroNome}, {NomeCompleto} e, com databaseConfigId, {coluna}. Variantes: ' +
  '{Olá|Oi|Bom dia} é trocado por uma delas, sorteada por contato (a mesma se o envio for ' +
  'repetido), antes de preencher as variáveis; variantes podem conter variáveis e outros grupos. ' +
  'Chaves devem estar balanceadas; {} e {|} são recusados; até 20 variantes por grupo e 3 níveis ' +
  'de grupos aninhados.';

export class CampaignContactDto {
  @ApiProperty({ example: '(11) 98765-4321' }) phoneNumber!: string;
  @ApiPropertyOptional({ example: 'Maria Souza', maxLength: 100 }) name?: string;
}

/**
 * The contacts list is checked in one tight loop instead of class-validator's nested
 * validation, which costs seconds on 100,000 items. Same rules: objects with a string
 * phoneNumber, an optional string name of at most 100 characters, and no other keys.
 */
function IsContactList(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isContactList',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => firstContactProblem(value) === null,
        defaultMessage: (args: ValidationArguments) => firstContactProblem(args.value) ?? '',
      },
    });
}

function firstContactProblem(value: unknown): string | null {
  if (!Array.isArray(value)) {
    return 'deve ser uma lista de contatos';
  }
  if (value.length === 0) {
    return 'informe ao menos 1 contato';
  }
  for (let i = 0; i < value.length; i += 1) {
    const item: unknown = value[i];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      return `item ${i}: deve ser um objeto {phoneNumber, name}`;
    }
    const contact = item as Record<string, unknown>;
    if (typeof contact.phoneNumber !== 'string' || contact.phoneNumber.trim() === '') {
      return `item ${i}: phoneNumber é obrigatório e deve ser um texto`;
    }
    if (contact.name !== undefined && contact.name !== null && typeof contact.name !== 'string') {
      return `item ${i}: name deve ser um texto`;
    }
    if (typeof contact.name === 'string' && contact.name.length > 100) {
      return `item ${i}: name deve ter no máximo 100 caracteres`;
    }
    for (const key of Object.keys(contact)) {
      if (key !== 'phoneNumber' && key !== 'name') {
        return `item ${i}: campo desconhecido ${key.slice(0, 40)}`;
      }
    }
  }
  return null;
}

export class PollDataDto {
  @ApiProperty({
    example: '{Qual|Que} horário é melhor para a entrega?',
    maxLength: 280,
    description: `${MESSAGE_TEXT_DESCRIPTION} As opções são enviadas como escritas.`,
  })
  @IsString({ message: 'deve ser um texto' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(280, { message: 'deve ter no máximo 280 caracteres' })
  name!: string;

  @ApiProperty({ example: ['Manhã', 'Tarde', 'Noite'], minItems: 2, maxItems: 10 })
  @IsArray({ message: 'deve ser uma lista' })
  @ArrayMinSize(2, { message: 'deve ter de 2 a 10 opções' })
  @ArrayMaxSize(10, { message: 'deve ter de 2 a 10 opções' })
  @ArrayUnique((o: unknown) => (typeof o === 'string' ? o.trim().toLowerCase() : o), {
    message: 'as opções devem ser únicas',
  })
  @IsString({ each: true, message: 'cada opção deve ser um texto' })
  @IsNotEmpty({ each: true, message: 'opções não podem ser vazias' })
  @MaxLength(100, { each: true, message: 'cada opção deve ter no máximo 100 caracteres' })
  options!: string[];

  @ApiProperty({ example: 1, minimum: 1, maximum: 10 })
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(1, { message: 'deve ser de 1 a 10' })
  @Max(10, { message: 'deve ser de 1 a 10' })
  selectableCount!: number;
}

export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;

export class CreateCampaignDto {
  @ApiProperty({ example: 'Black Friday clientes VIP', minLength: 2, maxLength: 100 })
  @IsString({ message: 'é obrigatório' })
  @Length(2, 100, { message: 'deve ter de 2 a 100 caracteres' })
  // The service stores the name trimmed: blanks around it do not count toward the 2.
  @Matches(/\S[\s\S]*\S/, { message: 'deve ter de 2 a 100 caracteres' })
  name!: string;

  @ApiPropertyOptional({ example: 'Oferta exclusiva' })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(1000, { message: 'deve ter no máximo 1000 caracteres' })
  description?: string;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  isTest?: boolean;

  @ApiPropertyOptional({ default: false, description: 'true salva sem enviar (DRAFT)' })
  @IsOptional()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  isDraft?: boolean;

  @ApiPropertyOptional({
    default: false,
    description:
      'true envia primeiro aos contatos quentes (que escreveram ao número dentro de settings reachOut.warmDays), depois aos outros',
  })
  @IsOptional()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  warmFirst?: boolean;

  @ApiPropertyOptional({
    example: 'https://gw.example.com',
    description:
      'Obrigatório sem gatewayConfigId. URL http(s) base do gateway, sem parâmetros (?), fragmento (#), usuário ou senha',
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  gatewayUrl?: string;

  @ApiPropertyOptional({ example: '7F3A…', description: 'Obrigatório sem gatewayConfigId' })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  gatewayApiKey?: string;

  @ApiPropertyOptional({ example: 'acme-sales', description: 'Obrigatório sem gatewayConfigId' })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  gatewayInstance?: string;

  @ApiPropertyOptional({
    example: 3,
    description: 'Configuração de gateway salva (alternativa aos três campos)',
  })
  @IsOptional()
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(1, { message: 'deve ser um identificador válido' })
  @Max(2_147_483_647, { message: 'deve ser um identificador válido' })
  gatewayConfigId?: number;

  @ApiPropertyOptional({
    example: [3, 7, 9],
    type: [Number],
    description: `Um pool de 1 a ${MAX_POOL_SENDERS} configurações de gateway salvas da empresa (alternativa a gatewayConfigId e aos três campos): cada contato recebe um número e o mantém; todos enviam ao mesmo tempo, cada um no seu ritmo`,
  })
  @IsOptional()
  @IsArray({ message: 'deve ser uma lista de identificadores de configuração' })
  @ArrayMinSize(1, { message: 'informe ao menos 1 configuração' })
  @ArrayMaxSize(MAX_POOL_SENDERS, {
    message: `pode ter no máximo ${MAX_POOL_SENDERS} configurações`,
  })
  @ArrayUnique({ message: 'não pode repetir uma configuração' })
  @IsInt({ each: true, message: 'cada item deve ser um número inteiro' })
  @Min(1, { each: true, message: 'cada item deve ser um identificador válido' })
  @Max(2_147_483_647, { each: true, message: 'cada item deve ser um identificador válido' })
  gatewayConfigIds?: number[];

  @ApiProperty({ type: [CampaignContactDto] })
  @IsContactList()
  contacts!: Array<{ phoneNumber: string; name?: string | null }>;

  @ApiPropertyOptional({
    example: '{Olá|Oi|Bom dia} {PrimeiroNome}, sua oferta chegou!',
    maxLength: 4096,
    description: `Obrigatória exceto para enquetes e rascunhos. ${MESSAGE_TEXT_DESCRIPTION}`,
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(4096, { message: 'deve ter no máximo 4096 caracteres' })
  message?: string;

  @ApiPropertyOptional({
    example: 'https://cdn.example.com/oferta.jpg',
    description: 'URL ou data URI base64',
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(16 * 1024 * 1024, { message: 'é grande demais' })
  mediaUrl?: string;

  @ApiPropertyOptional({ enum: MEDIA_TYPES, description: 'Detectado pela URL quando omitido' })
  @IsOptional()
  @IsIn(MEDIA_TYPES, { message: `deve ser um de: ${MEDIA_TYPES.join(', ')}` })
  mediaType?: (typeof MEDIA_TYPES)[number];

  @ApiPropertyOptional({ example: 'catalogo.pdf' })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(255, { message: 'deve ter no máximo 255 caracteres' })
  fileName?: string;

  @ApiPropertyOptional({
    maxLength: 1024,
    example: '{Oferta|Promoção} da semana, {PrimeiroNome}',
    description: `Legenda da mídia (sem ela, a mensagem é a legenda). ${MESSAGE_TEXT_DESCRIPTION}`,
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(1024, { message: 'deve ter no máximo 1024 caracteres' })
  caption?: string;

  @ApiPropertyOptional({ type: PollDataDto })
  @IsOptional()
  @IsObject({ message: 'deve ser um objeto' })
  @ValidateNested()
  @Type(() => PollDataDto)
  pollData?: PollDataDto;

  @ApiPropertyOptional({
    type: CampaignTemplateDto,
    description:
      'Só numa configuração da API oficial (CLOUD_API): o modelo aprovado enviado no lugar de message, mídia e enquete. O modelo deve existir na conta, APPROVED, com o número de parâmetros do corpo e a mídia do cabeçalho que ele pede.',
  })
  @IsOptional()
  @IsObject({ message: 'deve ser um objeto' })
  @ValidateNested()
  @Type(() => CampaignTemplateDto)
  template?: CampaignTemplateDto;

  @ApiPropertyOptional({
    example: '2026-12-01T09:00:00',
    description: 'Hora local (APP_TIMEZONE), ao menos 5 min à frente',
  })
  @IsOptional()
  @IsString({ message: 'deve ser uma data-hora no formato YYYY-MM-DDTHH:mm:ss' })
  scheduledFor?: string;

  @ApiPropertyOptional({
    default: 5,
    minimum: 0,
    maximum: MAX_INTERVAL_SECONDS,
    description: INTERVAL_DEFAULTS,
  })
  @IsOptional()
  @IsInt({ message: 'deve ser um número inteiro de segundos' })
  @Min(0, { message: 'não pode ser negativo' })
  @Max(MAX_INTERVAL_SECONDS, { message: `deve ser no máximo ${MAX_INTERVAL_SECONDS}` })
  intervalMinSeconds?: number;

  @ApiPropertyOptional({
    default: 12,
    minimum: 0,
    maximum: MAX_INTERVAL_SECONDS,
    description: INTERVAL_DEFAULTS,
  })
  @IsOptional()
  @IsInt({ message: 'deve ser um número inteiro de segundos' })
  @Min(0, { message: 'não pode ser negativo' })
  @Max(MAX_INTERVAL_SECONDS, { message: `deve ser no máximo ${MAX_INTERVAL_SECONDS}` })
  intervalMaxSeconds?: number;

  @ApiPropertyOptional({ example: '11999990000' })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(40, { message: 'deve ter no máximo 40 caracteres' })
  notificationPhone?: string;

  @ApiPropertyOptional({
    type: SendingWindowDto,
    nullable: true,
    description:
      'Quando a campanha pode enviar; fora dela espera ACTIVE (waitingReason OUTSIDE_WINDOW). Omitida: a janela padrão da empresa (settings), ou sempre',
  })
  @IsOptional()
  @IsObject({ message: 'deve ser um objeto {days, start, end, timezone}' })
  @ValidateNested()
  @Type(() => SendingWindowDto)
  sendingWindow?: SendingWindowDto;

  @ApiPropertyOptional({
    example: 50,
    minimum: 1,
    description: 'A cada tantas mensagens enviadas, uma pausa longa (longPauseSeconds)',
  })
  @IsOptional()
  @IsInt({ message: 'deve ser um número inteiro de mensagens' })
  @Min(1, { message: 'deve ser ao menos 1' })
  @Max(100_000, { message: 'deve ser no máximo 100000' })
  longPauseEvery?: number;

  @ApiPropertyOptional({
    type: [Number],
    example: [300, 600],
    description: 'Pausa longa [mínimo, máximo] em segundos, sorteada a cada vez',
  })
  @IsOptional()
  @IsArray({ message: 'deve ser uma lista [mínimo, máximo] de segundos' })
  @ArrayMinSize(2, { message: 'deve ser uma lista [mínimo, máximo] de segundos' })
  @ArrayMaxSize(2, { message: 'deve ser uma lista [mínimo, máximo] de segundos' })
  @IsInt({ each: true, message: 'deve ter segundos inteiros' })
  @Min(0, { each: true, message: 'não pode ser negativa' })
  @Max(MAX_LONG_PAUSE_SECONDS, {
    each: true,
    message: `deve ser de no máximo ${MAX_LONG_PAUSE_SECONDS} segundos`,
  })
  longPauseSeconds?: number[];

  @ApiPropertyOptional({ example: 7, description: 'Base de dados para variáveis {coluna}' })
  @IsOptional()
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(1, { message: 'deve ser um identificador válido' })
  @Max(2_147_483_647, { message: 'deve ser um identificador válido' })
  databaseConfigId?: number;
}
