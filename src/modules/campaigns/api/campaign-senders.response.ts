import { ApiProperty } from '@nestjs/swagger';
import { pendingOf } from '../domain/campaign-stats';
import type { Campaign } from '../domain/campaign.entity';
import { senderStateOf, type SenderState } from '../domain/sender-pool';

/** One number a campaign sends through, with what it did. */
export class CampaignSenderResponse {
  @ApiProperty({ example: 3 }) gatewayConfigId!: number;
  @ApiProperty({ example: 'acme-sales' }) instance!: string;
  @ApiProperty({
    enum: ['SENDING', 'PAUSED', 'LOST', 'DONE'],
    description:
      'SENDING: envia (ou espera a vez, a janela, o limite do dia); PAUSED: pausado com a campanha; LOST: perdido (desconectado, credenciais recusadas, bloqueio de contato…), seus contatos pendentes passaram aos outros; DONE: terminou os seus',
  })
  state!: SenderState;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Quando LOST: por quê',
  })
  lostReason!: string | null;
  @ApiProperty() sentContacts!: number;
  @ApiProperty() failedContacts!: number;
  @ApiProperty() pendingContacts!: number;
}

/**
 * The campaign's senders: a pool's, in the order given, or the one number of a campaign on
 * one (the same shape, so that clients read both alike).
 */
export function toCampaignSenders(campaign: Campaign): CampaignSenderResponse[] {
  const senders = campaign.senders ?? [
    {
      gatewayConfigId: campaign.gatewayConfigId,
      instance: campaign.gatewayInstance,
      status: campaign.status,
      senderLostAt: null,
      senderLostReason: null,
      totalContacts: campaign.totalContacts,
      sentContacts: campaign.sentContacts,
      failedContacts: campaign.failedContacts,
    },
  ];
  return senders.map((sender) => ({
    gatewayConfigId: sender.gatewayConfigId,
    instance: sender.instance,
    state: senderStateOf(sender),
    lostReason: sender.senderLostReason,
    sentContacts: sender.sentContacts,
    failedContacts: sender.failedContacts,
    pendingContacts: pendingOf(sender),
  }));
}
