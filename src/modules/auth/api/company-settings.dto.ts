import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsObject,
  ValidateNested,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { IsOmittable } from '../../../common/http/validation';
import type { Company } from '../domain/company.entity';
import { Type } from 'class-transformer';
import { SendingWindowDto } from '../../../common/time/sending-window.dto';
import { ApiNullableObject } from '../../../common/http/api-nullable.decorator';
import { AutoPauseDto } from '../../../common/messaging/auto-pause.dto';
import { ReachOutDto } from '../../../common/messaging/reach-out.dto';
import { MessagePricesDto } from '../../../common/messaging/message-prices.dto';

export class UpdateCompanySettingsDto {
  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  blockedContactsEnabled?: boolean;
  @ApiPropertyOptional()
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  pollCampaignsEnabled?: boolean;
  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['SAIR', 'PARAR', 'STOP', 'CANCELAR', 'DESCADASTRAR'],
    description:
      'Respostas que descadastram o número (comparadas sem espaços nas pontas, maiúsculas ou acentos); null volta ao padrão',
  })
  @IsOmittable()
  @ValidateIf((_o, value) => value !== null)
  @IsArray({ message: 'deve ser uma lista de palavras' })
  @ArrayMinSize(1, { message: 'informe ao menos 1 palavra (ou null para o padrão)' })
  @ArrayMaxSize(50, { message: 'pode ter no máximo 50 palavras' })
  @IsString({ each: true, message: 'cada palavra deve ser um texto' })
  @Matches(/\S/, { each: true, message: 'nenhuma palavra pode ser vazia' })
  @MaxLength(50, { each: true, message: 'cada palavra deve ter no máximo 50 caracteres' })
  optOutWords?: string[] | null;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'Pronto! Você não receberá mais nossas mensagens.',
    description:
      'Resposta enviada uma vez, pela mesma instância, a quem se descadastrou; null: nenhuma',
  })
  @IsOmittable()
  @ValidateIf((_o, value) => value !== null)
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(1000, { message: 'deve ter no máximo 1000 caracteres' })
  optOutConfirmation?: string | null;
  @ApiPropertyOptional({
    type: SendingWindowDto,
    nullable: true,
    description:
      'Janela de envio padrão das campanhas (sem janela própria) e das automações; null: sempre',
  })
  @IsOmittable()
  @ValidateIf((_o, value) => value !== null)
  @IsObject({ message: 'deve ser um objeto {days, start, end, timezone}' })
  @ValidateNested()
  @Type(() => SendingWindowDto)
  sendingWindow?: SendingWindowDto | null;
  @ApiPropertyOptional({
    type: AutoPauseDto,
    nullable: true,
    description:
      'Quando uma campanha é pausada por sinais de bloqueio (falhas seguidas, números fora do WhatsApp); null volta ao padrão',
  })
  @IsOmittable()
  @ValidateIf((_o, value) => value !== null)
  @IsObject({ message: 'deve ser um objeto {failuresInRow, refusedPercent, refusedSample}' })
  @ValidateNested()
  @Type(() => AutoPauseDto)
  autoPause?: AutoPauseDto | null;
  @ApiPropertyOptional({
    type: ReachOutDto,
    nullable: true,
    description:
      'Bloqueio de contato com quem não conversa com o número (recusas do WhatsApp), contatos quentes e janela das respostas; null volta ao padrão',
  })
  @IsOmittable()
  @ValidateIf((_o, value) => value !== null)
  @IsObject({
    message:
      'deve ser um objeto {lockRefusals, lockSample, lockCooldownHours, warmDays, replyWindowHours}',
  })
  @ValidateNested()
  @Type(() => ReachOutDto)
  reachOut?: ReachOutDto | null;
  @ApiPropertyOptional({
    description: 'Se o evento contact.replied dos webhooks leva o texto da resposta',
  })
  @IsOmittable()
  @IsBoolean({ message: 'deve ser verdadeiro ou falso' })
  includeReplyText?: boolean;
  @ApiPropertyOptional({
    type: MessagePricesDto,
    nullable: true,
    description:
      'Preço por mensagem da API oficial (USD, por categoria), para estimar e somar o custo das campanhas; null: os custos são contados, sem preço',
  })
  @IsOmittable()
  @ValidateIf((_o, value) => value !== null)
  @IsObject({ message: 'deve ser um objeto {marketing, utility, authentication, service}' })
  @ValidateNested()
  @Type(() => MessagePricesDto)
  messagePrices?: MessagePricesDto | null;
}

export class CompanySettingsResponse {
  @ApiProperty() companyId!: number;
  @ApiProperty() blockedContactsEnabled!: boolean;
  @ApiProperty() pollCampaignsEnabled!: boolean;
  @ApiProperty() automationsEnabled!: boolean;
  @ApiProperty({ type: [String], example: ['SAIR', 'PARAR', 'STOP', 'CANCELAR', 'DESCADASTRAR'] })
  optOutWords!: string[];
  @ApiProperty({ type: String, nullable: true }) optOutConfirmation!: string | null;
  @ApiNullableObject(SendingWindowDto) sendingWindow!: SendingWindowDto | null;
  /** The thresholds in force: the company's own, or the defaults. */
  @ApiProperty({ type: AutoPauseDto }) autoPause!: AutoPauseDto;
  /** The settings in force: the company's own, or the defaults. */
  @ApiProperty({ type: ReachOutDto }) reachOut!: ReachOutDto;
  @ApiProperty() includeReplyText!: boolean;
  @ApiNullableObject(MessagePricesDto) messagePrices!: MessagePricesDto | null;
}

export function toCompanySettingsResponse(company: Company): CompanySettingsResponse {
  return {
    companyId: company.id,
    blockedContactsEnabled: company.blockedContactsEnabled,
    pollCampaignsEnabled: company.pollCampaignsEnabled,
    automationsEnabled: company.automationsEnabled,
    optOutWords: [...company.effectiveOptOutWords],
    optOutConfirmation: company.optOutConfirmation,
    sendingWindow: company.sendingWindow,
    autoPause: company.effectiveAutoPause,
    reachOut: company.effectiveReachOut,
    includeReplyText: company.includeReplyText,
    messagePrices: company.messagePrices,
  };
}
