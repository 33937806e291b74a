import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import type { CampaignContactRow } from '../domain/campaign-contact-row';
import { publicContactStatus } from '../domain/campaign-contact-status';

/** The number a contact is sent through. */
export class GatewayConfigSenderRef {
  @ApiProperty({ example: 3 }) gatewayConfigId!: number;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
}

export class CampaignContactResponse {
  @ApiProperty() id!: number;
  @ApiProperty({ example: '5511987654321' }) phoneNumber!: string;
  @ApiProperty({ example: 'Maria Souza' }) name!: string;
  @ApiProperty({ enum: ['PENDING', 'SENT', 'FAILED'] }) status!: string;
  @ApiPropertyOptional({ description: 'Quando SENT' }) sentAt?: string;
  @ApiPropertyOptional({ description: 'Quando FAILED' }) failedAt?: string;
  @ApiPropertyOptional({ description: 'Quando FAILED' }) failureReason?: string;
  @ApiProperty({ description: 'Tentativas de envio' }) retryCount!: number;
  @ApiPropertyOptional({ description: 'Quando o WhatsApp informou a entrega (com trackDelivery)' })
  deliveredAt?: string;
  @ApiPropertyOptional({ description: 'Quando foi lida' }) readAt?: string;
  @ApiPropertyOptional({ description: 'Quando o áudio ou vídeo foi reproduzido' })
  playedAt?: string;
  @ApiPropertyOptional({ description: 'Erro que o WhatsApp informou depois de aceitar a mensagem' })
  deliveryError?: string;
  @ApiPropertyOptional({
    description:
      'Quando FAILED: por quê (refused_number, rejected, retries_exhausted, blocked, blank_message, not_delivered: o WhatsApp recusou depois de aceitar, unknown_outcome, unrecorded)',
  })
  failureKind?: string;
  @ApiPropertyOptional({
    description:
      'Quando a pessoa respondeu: escreveu ao número dentro da janela de resposta depois desta mensagem',
  })
  repliedAt?: string;
  @ApiProperty({
    description:
      'Contato quente: a pessoa escreveu ao número da campanha dentro da janela (settings reachOut.warmDays) quando foi incluída ou depois; o bloqueio de contato (erro 463) ainda deixa enviar a ela',
  })
  warm!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'Oi Maria, tudo bem?',
    description:
      'O texto enviado a este contato, com as variantes sorteadas e as variáveis preenchidas (a mensagem, a legenda ou a pergunta da enquete; depois de um áudio, o texto que o segue). null antes do envio, e quando o envio foi confirmado só pela reconciliação com o gateway',
  })
  sentText!: string | null;
  @ApiProperty({
    type: GatewayConfigSenderRef,
    description: 'O número por onde o contato é enviado (num pool, o que lhe coube; fica com ele)',
  })
  sender!: GatewayConfigSenderRef;
}

/** SENDING and UNCERTAIN are internal: the contract's contact states are three. */
export function toCampaignContactResponse(
  row: CampaignContactRow,
  timezone: string,
): CampaignContactResponse {
  const response: CampaignContactResponse = {
    id: Number(row.id),
    phoneNumber: row.phoneNumber,
    name: row.name,
    status: publicContactStatus(row.status),
    retryCount: row.retryCount,
    sentText: row.sentText,
    warm: row.warm,
    sender: { gatewayConfigId: row.senderGatewayConfigId, instance: row.senderInstance },
  };
  if (row.status === 'SENT' && row.sentAt) {
    response.sentAt = formatLocalDateTime(row.sentAt, timezone) as string;
  }
  for (const field of ['deliveredAt', 'readAt', 'playedAt', 'repliedAt'] as const) {
    const at = row[field];
    if (at) {
      response[field] = formatLocalDateTime(at, timezone) as string;
    }
  }
  if (row.deliveryError) {
    response.deliveryError = row.deliveryError;
  }
  if (row.status === 'FAILED') {
    response.failedAt = formatLocalDateTime(row.failedAt, timezone) as string;
    response.failureReason = row.failureReason ?? '';
    response.failureKind = row.failureKind ?? 'unrecorded';
  }
  return response;
}
