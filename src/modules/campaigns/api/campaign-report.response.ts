import { ApiProperty } from '@nestjs/swagger';
import type { CampaignStatus } from '../domain/campaign-status';
import { CAMPAIGN_STATUSES } from '../domain/campaign-status';
import type { ContactFailureKind } from '../domain/contact-failure-kind';
import { type FunnelCounts, ratesOf } from '../domain/campaign-report';
import type { BillableMessages } from '../../../common/messaging/message-prices';

/** The failed contacts by why (campaign_contacts.failure_kind), every kind present. */
export class FailedByKindResponse implements Record<ContactFailureKind, number> {
  @ApiProperty({ description: 'Número fora do WhatsApp' }) refused_number!: number;
  @ApiProperty({ description: 'Mensagem recusada pela validação do gateway' }) rejected!: number;
  @ApiProperty({ description: 'Erros temporários do gateway em todas as tentativas' })
  retries_exhausted!: number;
  @ApiProperty({ description: 'Número bloqueado depois da criação' }) blocked!: number;
  @ApiProperty({ description: 'Mensagem em branco para o contato' }) blank_message!: number;
  @ApiProperty({ description: 'O WhatsApp recusou depois de o gateway aceitar' })
  not_delivered!: number;
  @ApiProperty({ description: 'Resultado desconhecido (a mensagem pode ter saído)' })
  unknown_outcome!: number;
  @ApiProperty({ description: 'Falhas anteriores ao registro do motivo' }) unrecorded!: number;
  @ApiProperty({ description: 'API oficial: a Meta não conseguiu entregar à pessoa (131026)' })
  undeliverable!: number;
  @ApiProperty({ description: 'API oficial: a Meta recusou, fora da janela de 24 h (131047)' })
  reengagement_required!: number;
  @ApiProperty({ description: 'API oficial: limite de marketing da pessoa atingido (131049)' })
  marketing_limit!: number;
  @ApiProperty({
    description: 'API oficial: mensagem livre a quem não escreveu em 24 h (sem chamada à Meta)',
  })
  outside_window!: number;
}

export class BillableMessagesResponse implements BillableMessages {
  @ApiProperty() marketing!: number;
  @ApiProperty() utility!: number;
  @ApiProperty() authentication!: number;
  @ApiProperty() service!: number;
}

/** Cloud API messages Meta charged for (status webhooks' `pricing`), at the company's prices. */
export class MessageCostResponse {
  @ApiProperty({ enum: ['USD'] }) currency!: 'USD';
  @ApiProperty({
    type: BillableMessagesResponse,
    description: 'Mensagens cobradas pela Meta, pela categoria de preço',
  })
  billableMessages!: BillableMessagesResponse;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 62.5,
    description: 'Custo pela tabela de preços da empresa; null sem tabela (messagePrices)',
  })
  amount!: number | null;
}

/** What happened to a set of contacts, and its shares in percent with one decimal. */
export class ReportFunnelResponse {
  @ApiProperty({ description: 'Contatos contados' }) total!: number;
  @ApiProperty({ description: 'Enviados (SENT)' }) sent!: number;
  @ApiProperty({ description: 'Enviados com recibo de entrega (ou de leitura)' })
  delivered!: number;
  @ApiProperty({ description: 'Enviados com recibo de leitura' }) read!: number;
  @ApiProperty({ description: 'Enviados a quem respondeu dentro da janela de resposta' })
  replied!: number;
  @ApiProperty({
    description:
      'Enviados cujo número se descadastrou (respondeu com uma palavra de descadastro) depois desta mensagem e segue bloqueado',
  })
  optedOut!: number;
  @ApiProperty({ description: 'Com falha (FAILED)' }) failed!: number;
  @ApiProperty({ type: FailedByKindResponse }) failedByKind!: FailedByKindResponse;
  @ApiProperty({ example: 96.5, description: 'delivered / sent, em %' }) deliveryRate!: number;
  @ApiProperty({ example: 41.2, description: 'read / sent, em %' }) readRate!: number;
  @ApiProperty({ example: 12.5, description: 'replied / sent, em %' }) replyRate!: number;
  @ApiProperty({ example: 0.4, description: 'optedOut / sent, em %' }) optOutRate!: number;
  @ApiProperty({ example: 2.1, description: 'failed / (sent + failed), em %' })
  failureRate!: number;
}

/** A campaign's (or one of its numbers') funnel: every contact, the pending ones too. */
export class CampaignFunnelResponse extends ReportFunnelResponse {
  @ApiProperty({ description: 'Ainda sem resultado (PENDING)' }) pending!: number;
}

export class CampaignSenderReportResponse extends CampaignFunnelResponse {
  @ApiProperty({ example: 3 }) gatewayConfigId!: number;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Primeiro envio (hora local)' })
  firstSendAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Último envio (hora local)' })
  lastSendAt!: string | null;
}

export class CampaignHourReportResponse {
  @ApiProperty({
    example: '2026-11-27T14:00:00',
    description: 'Início da hora, local (APP_TIMEZONE)',
  })
  hour!: string;
  @ApiProperty({ description: 'Enviados (SENT) nessa hora' }) sent!: number;
}

export class CampaignReportResponse {
  @ApiProperty() campaignId!: number;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: CAMPAIGN_STATUSES }) status!: CampaignStatus;
  @ApiProperty({ type: CampaignFunnelResponse }) funnel!: CampaignFunnelResponse;
  @ApiProperty({
    type: [CampaignSenderReportResponse],
    description: 'Por número: os do pool, na ordem dada, ou o único número; somam o funil',
  })
  senders!: CampaignSenderReportResponse[];
  @ApiProperty({
    type: [CampaignHourReportResponse],
    description: 'Envios por hora local, em ordem; horas sem envio não aparecem',
  })
  hours!: CampaignHourReportResponse[];
  @ApiProperty({ type: String, nullable: true, description: 'Primeiro envio (hora local)' })
  firstSendAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Último envio (hora local)' })
  lastSendAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Conclusão (hora local)' })
  completedAt!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Segundos do primeiro envio à conclusão, ou ao último envio enquanto não concluída; null antes do primeiro envio',
  })
  durationSeconds!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Enviados por minuto na duração; null sem duração',
  })
  messagesPerMinute!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Enviados por hora na duração; null sem duração',
  })
  messagesPerHour!: number | null;
  @ApiProperty({ type: MessageCostResponse }) cost!: MessageCostResponse;
}

/** The company report's counts of a day, or of the whole range. */
export class CompanyReportTotalsResponse extends ReportFunnelResponse {
  @ApiProperty({ description: 'Campanhas com contatos contados (um pool conta uma vez)' })
  campaigns!: number;
  @ApiProperty({ description: 'Execuções de automação com contatos contados' })
  automationRuns!: number;
  @ApiProperty({ type: MessageCostResponse }) cost!: MessageCostResponse;
}

export class CompanyDayReportResponse extends CompanyReportTotalsResponse {
  @ApiProperty({ example: '2026-11-27', description: 'Dia local (APP_TIMEZONE)' }) date!: string;
}

export class CompanyReportResponse {
  @ApiProperty({ example: '2026-10-29' }) from!: string;
  @ApiProperty({ example: '2026-11-27' }) to!: string;
  @ApiProperty({ example: 'America/Sao_Paulo', description: 'Fuso dos dias (APP_TIMEZONE)' })
  timezone!: string;
  @ApiProperty({ type: CompanyReportTotalsResponse }) totals!: CompanyReportTotalsResponse;
  @ApiProperty({
    type: [CompanyDayReportResponse],
    description: 'Cada dia do período, em ordem, também os sem envios (zeros)',
  })
  days!: CompanyDayReportResponse[];
}

export function toFunnelResponse(funnel: FunnelCounts): ReportFunnelResponse {
  return {
    total: funnel.total,
    sent: funnel.sent,
    delivered: funnel.delivered,
    read: funnel.read,
    replied: funnel.replied,
    optedOut: funnel.optedOut,
    failed: funnel.failed,
    failedByKind: { ...funnel.failedByKind },
    ...ratesOf(funnel),
  };
}

export function toCampaignFunnelResponse(funnel: FunnelCounts): CampaignFunnelResponse {
  return {
    ...toFunnelResponse(funnel),
    pending: Math.max(0, funnel.total - funnel.sent - funnel.failed),
  };
}
