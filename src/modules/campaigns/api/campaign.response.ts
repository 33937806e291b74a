import { PRICED_CATEGORIES, type PricedCategory } from '../../../common/messaging/message-prices';
import { percentOf } from '../domain/campaign-report';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CampaignSenderResponse, toCampaignSenders } from './campaign-senders.response';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import type { Campaign } from '../domain/campaign.entity';
import { describeDataUri } from '../domain/gateway-media-rules';
import { isDataUri } from '../domain/media-kind';
import { SendingWindowDto } from '../../../common/time/sending-window.dto';
import {
  estimatedCompletion,
  pendingOf,
  progressPercentage,
  successRate,
} from '../domain/campaign-stats';
import { ApiNullableObject } from '../../../common/http/api-nullable.decorator';

export class GatewayConfigRef {
  @ApiProperty({ example: 3 }) id!: number;
  @ApiProperty({ example: 'acme-sales' }) name!: string;
  @ApiProperty({ example: 'https://gw.example.com' }) url!: string;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
}

export class PollDataResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ type: [String] }) options!: string[];
  @ApiProperty() selectableCount!: number;
}

export class TemplateHeaderMediaResponse {
  @ApiProperty({ enum: ['image', 'video', 'document'] }) mediaType!: string;
  @ApiProperty() url!: string;
}

/** What a template campaign should cost, at the company's prices. */
export class EstimatedCostResponse {
  @ApiProperty({ enum: ['USD'] }) currency!: 'USD';
  @ApiProperty({ enum: PRICED_CATEGORIES, description: 'A categoria de preço do modelo' })
  category!: PricedCategory;
  @ApiProperty({ description: 'Mensagens: uma por contato' }) messages!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 62.5,
    description: 'USD pela tabela de preços da empresa; null sem tabela (messagePrices)',
  })
  amount!: number | null;
}

/** A Cloud API campaign's approved template, its parameters as written (rendered per contact). */
export class CampaignTemplateResponse {
  @ApiProperty({ example: 'oferta_black_friday' }) name!: string;
  @ApiProperty({ example: 'pt_BR' }) language!: string;
  @ApiProperty({ type: [String], example: ['{PrimeiroNome}', 'texto fixo'] })
  bodyParameters!: string[];
  @ApiNullableObject(TemplateHeaderMediaResponse) headerMedia!: TemplateHeaderMediaResponse | null;
}

/** Dates are local to APP_TIMEZONE, `YYYY-MM-DDTHH:mm:ss` (docs/API-RULES.md §1). */
export class CampaignResponse {
  @ApiProperty({ example: 41 }) id!: number;
  @ApiProperty({ example: 'Black Friday clientes VIP' }) name!: string;
  @ApiProperty({
    description: 'Campanha de teste, como criada (não conta no limite de criações por hora)',
  })
  isTest!: boolean;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({
    enum: ['DRAFT', 'SCHEDULED', 'ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED', 'FAILED'],
  })
  status!: string;
  @ApiProperty({ enum: ['TEXT', 'MEDIA', 'POLL'] }) type!: string;
  @ApiProperty({ example: '2026-11-22T09:00:00' }) createdAt!: string;
  @ApiProperty({ nullable: true, type: String }) scheduledFor!: string | null;
  @ApiProperty({ nullable: true, type: String }) startedAt!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'No cancelamento, a hora do cancelamento',
  })
  completedAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) pausedAt!: string | null;
  @ApiProperty() totalContacts!: number;
  @ApiProperty() sentContacts!: number;
  @ApiProperty() failedContacts!: number;
  @ApiProperty() pendingContacts!: number;
  @ApiProperty({ example: 42.5 }) progressPercentage!: number;
  @ApiProperty({ example: 98.2 }) successRate!: number;
  @ApiProperty({ nullable: true, type: String }) estimatedCompletion!: string | null;
  @ApiProperty() messageContent!: string;
  @ApiProperty({ nullable: true, type: String }) mediaType!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'A URL da mídia; um data URI aparece resumido (tipo e tamanho), nunca com os bytes',
  })
  mediaUrl!: string | null;
  @ApiProperty({ nullable: true, type: String }) fileName!: string | null;
  @ApiProperty() gatewayInstance!: string;
  @ApiProperty({ example: 5 }) minInterval!: number;
  @ApiProperty({ example: 12 }) maxInterval!: number;
  @ApiNullableObject(SendingWindowDto, {
    description: 'A janela da campanha; null: a padrão da empresa, ou sempre',
  })
  sendingWindow!: SendingWindowDto | null;
  @ApiProperty({ nullable: true, type: Number, example: 50 }) longPauseEvery!: number | null;
  @ApiProperty({ nullable: true, type: [Number], example: [300, 600] })
  longPauseSeconds!: number[] | null;
  @ApiProperty({
    nullable: true,
    type: String,
    enum: [
      'OUTSIDE_WINDOW',
      'DAILY_LIMIT',
      'LONG_PAUSE',
      'INSTANCE_DISCONNECTED',
      'INSTANCE_NOT_PAIRED',
      'REACHOUT_LOCKED',
      null,
    ],
    description:
      'Por que uma campanha ACTIVE espera: fora da janela de envio, limite diário (ou aquecimento) da instância atingido, pausa longa, instância desconectada ou nunca pareada (leia o QR code; o estado está em GET /api/gateway-configs/{id}), ou REACHOUT_LOCKED: o WhatsApp bloqueou o número para quem não conversa com ele (erro 463) e os contatos que faltam são frios (ou o bloqueio pega todos); o envio continua quando o bloqueio acabar (reachOutLock em GET /api/gateway-configs/{id}). Os contatos seguem pendentes',
  })
  waitingReason!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '2026-12-01T08:00:00',
    description: 'Hora local (APP_TIMEZONE) em que a campanha ACTIVE pode enviar de novo',
  })
  nextSendAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) notificationPhone!: string | null;
  @ApiProperty({ description: 'Envia primeiro aos contatos quentes' }) warmFirst!: boolean;
  @ApiNullableObject(PollDataResponse) pollData!: PollDataResponse | null;
  /** Only on a Cloud API configuration: the template sent instead of a message. */
  @ApiNullableObject(CampaignTemplateResponse) template!: CampaignTemplateResponse | null;
  @ApiProperty({
    type: GatewayConfigRef,
    description: 'A configuração por onde envia; num pool, a primeira (veja senders)',
  })
  gatewayConfig!: GatewayConfigRef;
  @ApiProperty({
    type: [CampaignSenderResponse],
    description:
      'Os números por onde envia: os do pool (gatewayConfigIds), na ordem dada, ou o único número',
  })
  senders!: CampaignSenderResponse[];
  @ApiProperty() blockedContactsRemoved!: number;
  @ApiProperty({
    description:
      'Contatos com falha cujo resultado ficou desconhecido: o gateway não confirmou o envio e a mensagem não foi encontrada nele (nunca reenviada). Já contados em failedContacts',
  })
  unknownOutcomeContacts!: number;
  @ApiProperty({ description: 'Entregues no aparelho (recibos do WhatsApp; só com trackDelivery)' })
  deliveredContacts!: number;
  @ApiProperty({
    description:
      'Lidas (recibos do WhatsApp; só com trackDelivery e confirmação de leitura ligada)',
  })
  readContacts!: number;
  @ApiProperty({ example: 96.5, description: 'deliveredContacts / sentContacts, em %' })
  deliveryRate!: number;
  @ApiProperty({ example: 41.2, description: 'readContacts / sentContacts, em %' })
  readRate!: number;
  @ApiProperty({
    description:
      'Pessoas que escreveram ao número dentro da janela de resposta depois da mensagem desta campanha (uma vez cada; só com trackDelivery)',
  })
  repliedContacts!: number;
  @ApiProperty({ example: 12.5, description: 'repliedContacts / sentContacts, em %' })
  replyRate!: number;
  @ApiProperty({
    description: 'Pessoas que responderam a esta campanha com uma palavra de descadastro',
  })
  optedOutContacts!: number;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'Por que o próprio serviço pausou a campanha (erros internos repetidos, empresa desativada); null quando pausada por uma pessoa ou não pausada',
  })
  pauseReason!: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'Motivo: da falha (FAILED) ou da pausa automática (PAUSED)',
  })
  message!: string | null;
  @ApiPropertyOptional({
    type: [String],
    description:
      'Só na criação: avisos, como um texto feito só de variáveis, que fica em branco para contatos sem esses dados',
  })
  warnings?: string[];
  @ApiPropertyOptional({
    type: EstimatedCostResponse,
    nullable: true,
    description:
      'Só na criação de uma campanha de modelo (API oficial): contatos × o preço da categoria do modelo; null sem modelo',
  })
  estimatedCost?: EstimatedCostResponse | null;
}

/** POST /api/campaigns/{id}/retry-failed: the campaign after the retry, and what it took back. */
export class CampaignRetryResponse extends CampaignResponse {
  @ApiProperty({
    example: 12,
    description:
      'Contatos com falha temporária do gateway que voltaram a PENDING (cada contato só uma vez). Os contatos que uma campanha FAILED deixou sem enviar também saem, e não entram nesta conta: pendingContacts traz tudo o que será enviado',
  })
  retriedContacts!: number;
}

type LocalTime = (date: Date | null) => string | null;

export function toCampaignResponse(
  campaign: Campaign,
  timezone: string,
  now: Date,
): CampaignResponse {
  const gatewayConfig = campaign.gatewayConfig;
  const local: LocalTime = (date) => formatLocalDateTime(date, timezone);
  return {
    id: campaign.id,
    name: campaign.name,
    isTest: campaign.isTest,
    description: campaign.description,
    status: campaign.status,
    type: campaign.type,
    createdAt: local(campaign.createdAt) as string,
    scheduledFor: local(campaign.scheduledFor),
    startedAt: local(campaign.startedAt),
    completedAt: local(campaign.completedAt),
    pausedAt: local(campaign.pausedAt),
    ...progressOf(campaign, local, now),
    messageContent: campaign.messageContent ?? '',
    mediaType: campaign.mediaType,
    mediaUrl:
      campaign.mediaUrl && isDataUri(campaign.mediaUrl)
        ? describeDataUri(campaign.mediaUrl)
        : campaign.mediaUrl,
    fileName: campaign.fileName,
    gatewayInstance: gatewayConfig.instance,
    ...pacingOf(campaign, local),
    notificationPhone: campaign.notificationPhone,
    warmFirst: campaign.warmFirst,
    pollData: campaign.pollData,
    template: campaign.template,
    gatewayConfig: {
      id: gatewayConfig.id,
      name: gatewayConfig.name,
      url: gatewayConfig.url,
      instance: gatewayConfig.instance,
    },
    senders: toCampaignSenders(campaign),
    ...receiptsOf(campaign),
    pauseReason: campaign.status === 'PAUSED' ? campaign.pauseReason : null,
    message:
      campaign.status === 'FAILED'
        ? campaign.failureReason
        : campaign.status === 'PAUSED'
          ? campaign.pauseReason
          : null,
  };
}

function progressOf(
  campaign: Campaign,
  local: LocalTime,
  now: Date,
): Pick<
  CampaignResponse,
  | 'totalContacts'
  | 'sentContacts'
  | 'failedContacts'
  | 'pendingContacts'
  | 'progressPercentage'
  | 'successRate'
  | 'estimatedCompletion'
> {
  const inProgress =
    campaign.status === 'ACTIVE' || campaign.status === 'SCHEDULED' || campaign.status === 'PAUSED';
  const estimateFrom =
    campaign.status === 'SCHEDULED' && campaign.scheduledFor ? campaign.scheduledFor : now;
  return {
    totalContacts: campaign.totalContacts,
    sentContacts: campaign.sentContacts,
    failedContacts: campaign.failedContacts,
    pendingContacts: pendingOf(campaign),
    progressPercentage: progressPercentage(campaign),
    successRate: successRate(campaign),
    estimatedCompletion: inProgress ? local(estimatedCompletion(campaign, estimateFrom)) : null,
  };
}

/** How the campaign is paced, and why an ACTIVE one waits. */
function pacingOf(
  campaign: Campaign,
  local: LocalTime,
): Pick<
  CampaignResponse,
  | 'minInterval'
  | 'maxInterval'
  | 'sendingWindow'
  | 'longPauseEvery'
  | 'longPauseSeconds'
  | 'waitingReason'
  | 'nextSendAt'
> {
  return {
    minInterval: campaign.minInterval,
    maxInterval: campaign.maxInterval,
    sendingWindow: campaign.sendingWindow,
    longPauseEvery: campaign.longPauseEvery,
    longPauseSeconds:
      campaign.longPauseEvery === null
        ? null
        : [campaign.longPauseMin ?? 0, campaign.longPauseMax ?? 0],
    waitingReason: campaign.status === 'ACTIVE' ? campaign.waitingReason : null,
    nextSendAt: local(campaign.sendsNoEarlierThan()),
  };
}

/** What happened to the sent messages afterwards: receipts, unknown outcomes, opt-outs. */
function receiptsOf(
  campaign: Campaign,
): Pick<
  CampaignResponse,
  | 'blockedContactsRemoved'
  | 'unknownOutcomeContacts'
  | 'deliveredContacts'
  | 'readContacts'
  | 'deliveryRate'
  | 'readRate'
  | 'repliedContacts'
  | 'replyRate'
  | 'optedOutContacts'
> {
  return {
    blockedContactsRemoved: campaign.blockedContactsRemoved,
    unknownOutcomeContacts: campaign.unknownOutcomeContacts,
    deliveredContacts: campaign.deliveredContacts,
    readContacts: campaign.readContacts,
    deliveryRate: percentOf(campaign.deliveredContacts, campaign.sentContacts),
    readRate: percentOf(campaign.readContacts, campaign.sentContacts),
    repliedContacts: campaign.repliedContacts,
    replyRate: percentOf(campaign.repliedContacts, campaign.sentContacts),
    optedOutContacts: campaign.optedOutContacts,
  };
}
