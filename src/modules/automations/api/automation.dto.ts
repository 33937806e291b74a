import { ApiProperty, ApiPropertyOptional, OmitType, PartialType, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsOmittable } from '../../../common/http/validation';
import {
  CreateCampaignDto,
  MESSAGE_TEXT_DESCRIPTION,
  PollDataDto,
} from '../../campaigns/api/create-campaign.dto';
import { MAX_POOL_SENDERS } from '../../campaigns/domain/sender-pool';
import { CampaignTemplateDto } from '../../campaigns/api/campaign-template.dto';
import { SCHEDULE_TYPES, ScheduleType } from '../domain/automation-schedule';
import {
  DEDUP_STRATEGIES,
  DedupStrategy,
  FILTER_OPERATORS,
  FilterOperator,
  MESSAGE_KINDS,
  MessageKind,
} from '../domain/automation-rules';

const INT = { message: 'deve ser um número inteiro' };
const TEXT = { message: 'deve ser um texto' };
const BOOL = { message: 'deve ser verdadeiro ou falso' };

export class ScheduleDto {
  @ApiPropertyOptional({ example: '09:00', description: 'HH:mm (DAILY, WEEKLY, MONTHLY)' })
  @IsOptional()
  @IsString(TEXT)
  timeOfDay?: string;

  @ApiProperty({ example: 'America/Sao_Paulo' })
  @IsString({ message: 'é obrigatório (fuso IANA)' })
  @MaxLength(64, { message: 'deve ter no máximo 64 caracteres' })
  timezone!: string;

  @ApiPropertyOptional({
    type: [Number],
    example: [1, 2, 3, 4, 5],
    description: 'ISO: 1 = segunda … 7 = domingo',
  })
  @IsOptional()
  @IsArray({ message: 'deve ser uma lista' })
  @ArrayMaxSize(7, { message: 'deve ter no máximo 7 dias' })
  @IsInt({ each: true, message: 'cada dia deve ser um número inteiro de 1 a 7' })
  weekdays?: number[];

  @ApiPropertyOptional({ example: 15, description: 'MONTHLY; meses sem o dia usam o último dia' })
  @IsOptional()
  @IsInt(INT)
  dayOfMonth?: number;

  @ApiPropertyOptional({
    example: '0 9 * * 1-5',
    description: 'CRON: 5 campos, no fuso de timezone',
  })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(120, { message: 'deve ter no máximo 120 caracteres' })
  cronExpression?: string;
}

export class FilterDto {
  @ApiProperty({ example: 'data_nascimento', description: 'columnName da base' })
  @IsString({ message: 'é obrigatório' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  filterId!: string;

  @ApiPropertyOptional({
    example: 'TODAY',
    description: 'TODAY = data da execução no fuso do agendamento',
  })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(500, { message: 'deve ter no máximo 500 caracteres' })
  value?: string;

  @ApiPropertyOptional({ enum: FILTER_OPERATORS, default: 'equals' })
  @IsOptional()
  @IsIn(FILTER_OPERATORS, { message: `deve ser um de: ${FILTER_OPERATORS.join(', ')}` })
  operator?: FilterOperator;

  @ApiPropertyOptional({ default: false, description: 'Compara datas só por mês e dia' })
  @IsOptional()
  @IsBoolean(BOOL)
  ignoreYear?: boolean;
}

export class MessageConfigDto {
  @ApiProperty({ enum: MESSAGE_KINDS })
  @IsIn(MESSAGE_KINDS, { message: `deve ser um de: ${MESSAGE_KINDS.join(', ')}` })
  type!: MessageKind;

  @ApiPropertyOptional({
    example: '{Feliz aniversário|Parabéns}, {PrimeiroNome}!',
    maxLength: 4096,
    description: `Obrigatória para TEXT. ${MESSAGE_TEXT_DESCRIPTION} Cada execução sorteia de novo.`,
  })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(4096, { message: 'deve ter no máximo 4096 caracteres' })
  message?: string;

  @ApiPropertyOptional({ example: 'https://cdn.example.com/cartao.jpg' })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(2048, { message: 'deve ter no máximo 2048 caracteres' })
  mediaUrl?: string;

  @ApiPropertyOptional({
    enum: ['image', 'video', 'document'],
    description: 'MEDIA; detectado pela URL quando omitido',
  })
  @IsOptional()
  @IsIn(['image', 'video', 'document'], { message: 'deve ser image, video ou document' })
  mediaType?: 'image' | 'video' | 'document';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(255, { message: 'deve ter no máximo 255 caracteres' })
  fileName?: string;

  @ApiPropertyOptional({
    maxLength: 1024,
    description: `Legenda da mídia (MEDIA). ${MESSAGE_TEXT_DESCRIPTION}`,
  })
  @IsOptional()
  @IsString(TEXT)
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
      'Só numa configuração da API oficial (CLOUD_API), com type TEXT e sem message: o modelo aprovado enviado, seus parâmetros preenchidos por registro',
  })
  @IsOptional()
  @IsObject({ message: 'deve ser um objeto' })
  @ValidateNested()
  @Type(() => CampaignTemplateDto)
  template?: CampaignTemplateDto;
}

/**
 * A pool replaces gatewayConfigId: both at once is refused, naming the pool, as a campaign's
 * creation does.
 */
function IsNotWithGatewayConfigId(): PropertyDecorator {
  return ValidateBy({
    name: 'notWithGatewayConfigId',
    validator: {
      validate: (_value, args) =>
        (args?.object as { gatewayConfigId?: unknown }).gatewayConfigId === undefined,
      defaultMessage: () => 'não pode ser usado junto com gatewayConfigId',
    },
  });
}

/**
 * The pool of senders with the campaigns' own rules and messages (1 to 20 unique ids), never
 * beside gatewayConfigId. That rule goes on the picked class itself: class-validator drops the
 * inherited validators of a field that a subclass gives a validator of its own.
 */
const SenderPoolDto = PickType(CreateCampaignDto, ['gatewayConfigIds'] as const);
IsNotWithGatewayConfigId()(SenderPoolDto.prototype as object, 'gatewayConfigIds');

export class CreateAutomationDto extends SenderPoolDto {
  @ApiProperty({ example: 'Aniversariantes do dia', maxLength: 100 })
  @IsString({ message: 'é obrigatório' })
  @Length(1, 100, { message: 'deve ter de 1 a 100 caracteres' })
  name!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(1000, { message: 'deve ter no máximo 1000 caracteres' })
  description?: string;

  @ApiPropertyOptional({ default: true }) @IsOmittable() @IsBoolean(BOOL) isActive?: boolean;

  @ApiProperty({ enum: SCHEDULE_TYPES })
  @IsIn(SCHEDULE_TYPES, { message: `é obrigatório: um de ${SCHEDULE_TYPES.join(', ')}` })
  scheduleType!: ScheduleType;

  @ApiProperty({ type: ScheduleDto })
  @IsObject({ message: 'é obrigatório' })
  @ValidateNested()
  @Type(() => ScheduleDto)
  schedule!: ScheduleDto;

  @ApiPropertyOptional({ type: [FilterDto] })
  @IsOmittable()
  @IsArray({ message: 'deve ser uma lista' })
  @ArrayMaxSize(20, { message: 'deve ter no máximo 20 filtros' })
  @ValidateNested({ each: true })
  @Type(() => FilterDto)
  filters?: FilterDto[];

  @ApiProperty({ type: MessageConfigDto })
  @IsObject({ message: 'é obrigatório' })
  @ValidateNested()
  @Type(() => MessageConfigDto)
  messageConfig!: MessageConfigDto;

  @ApiPropertyOptional({ nullable: true, type: String, example: '11999990000' })
  @IsOptional()
  @IsString(TEXT)
  @MaxLength(40, { message: 'deve ter no máximo 40 caracteres' })
  notificationPhone?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    example: 200,
    description: 'Máximo de envios por execução',
  })
  @IsOptional()
  @IsInt(INT)
  @Min(1, { message: 'deve ser no mínimo 1' })
  @Max(1_000_000, { message: 'deve ser no máximo 1000000' })
  sendLimitPerRun?: number | null;

  @ApiPropertyOptional({ default: 5 })
  @IsOmittable()
  @IsInt(INT)
  @Min(0, { message: 'não pode ser negativo' })
  @Max(3600, { message: 'deve ser no máximo 3600' })
  intervalMinSeconds?: number;

  @ApiPropertyOptional({ default: 12 })
  @IsOmittable()
  @IsInt(INT)
  @Min(0, { message: 'não pode ser negativo' })
  @Max(3600, { message: 'deve ser no máximo 3600' })
  intervalMaxSeconds?: number;

  @ApiProperty({ example: 7 })
  @IsInt({ message: 'é obrigatório (número inteiro)' })
  @Min(1, { message: 'deve ser um identificador válido' })
  @Max(2_147_483_647, { message: 'deve ser um identificador válido' })
  databaseConfigId!: number;

  @ApiPropertyOptional({
    example: 3,
    description: 'Configuração de gateway por onde envia; obrigatória sem gatewayConfigIds',
  })
  @ValidateIf((body: CreateAutomationDto) => (body.gatewayConfigIds ?? null) === null)
  @IsInt({ message: 'é obrigatório (número inteiro)' })
  @Min(1, { message: 'deve ser um identificador válido' })
  @Max(2_147_483_647, { message: 'deve ser um identificador válido' })
  gatewayConfigId?: number;

  @ApiPropertyOptional({
    example: [3, 7, 9],
    type: [Number],
    nullable: true,
    description: `Um pool de 1 a ${MAX_POOL_SENDERS} configurações de gateway salvas da empresa (alternativa a gatewayConfigId), na ordem dada: cada execução envia por todos ao mesmo tempo, e cada pessoa fica no número que já falou com ela ou que lhe enviou por último. gatewayConfigId passa a ser o primeiro. Na atualização, null volta a um único número (o primeiro do pool)`,
  })
  // null passes the inherited rules (a campaign's pool is optional): PUT reads it as the way back.
  override gatewayConfigIds?: number[];

  @ApiPropertyOptional({ enum: DEDUP_STRATEGIES, default: 'ONCE' })
  @IsOmittable()
  @IsIn(DEDUP_STRATEGIES, { message: `deve ser um de: ${DEDUP_STRATEGIES.join(', ')}` })
  dedupStrategy?: DedupStrategy;

  @ApiPropertyOptional({
    nullable: true,
    type: Number,
    example: 365,
    description: 'Obrigatório com COOLDOWN_DAYS',
  })
  @IsOptional()
  @IsInt(INT)
  @Min(1, { message: 'deve ser no mínimo 1' })
  @Max(3650, { message: 'deve ser no máximo 3650' })
  dedupCooldownDays?: number | null;
}

/** The fields PUT accepts (docs/API-RULES.md §5); fields left out keep their value, null is refused for the required ones. */
export class UpdateAutomationDto extends PartialType(
  OmitType(CreateAutomationDto, [
    'databaseConfigId',
    'gatewayConfigId',
    'dedupStrategy',
    'dedupCooldownDays',
  ] as const),
  { skipNullProperties: false },
) {}

export class TestSendDto {
  @ApiProperty({ example: '11987654321' })
  @IsString({ message: 'é obrigatório' })
  @IsNotEmpty({ message: 'é obrigatório' })
  @MaxLength(40, { message: 'deve ter no máximo 40 caracteres' })
  phoneNumber!: string;
}
