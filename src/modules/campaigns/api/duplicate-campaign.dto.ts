import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { CAMPAIGN_NAME_MAX, COPY_MODES, CopyMode } from '../domain/campaign-copies';
import { CampaignResponse } from './campaign.response';

const MODES_MESSAGE = `deve ser um de: ${COPY_MODES.join(', ')}`;

/** POST /api/campaigns/{id}/duplicate. */
export class DuplicateCampaignDto {
  @ApiPropertyOptional({
    example: 'Black Friday – quem não leu',
    minLength: 2,
    maxLength: CAMPAIGN_NAME_MAX,
    description: 'Sem nome: "<nome da original> (cópia)", cortado para caber em 100 caracteres',
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @Length(2, CAMPAIGN_NAME_MAX, { message: `deve ter de 2 a ${CAMPAIGN_NAME_MAX} caracteres` })
  // Stored trimmed, as at creation: blanks around it do not count toward the 2.
  @Matches(/\S[\s\S]*\S/, { message: `deve ter de 2 a ${CAMPAIGN_NAME_MAX} caracteres` })
  name?: string;

  @ApiProperty({
    enum: COPY_MODES,
    description:
      'Quais contatos da original a cópia recebe. ALL: todos. FAILED: os FAILED, de qualquer motivo. NOT_DELIVERED: SENT sem confirmação de entrega, leitura ou resposta, e FAILED not_delivered (o WhatsApp recusou depois do gateway aceitar). NOT_READ: SENT sem leitura nem resposta. NOT_REPLIED: SENT sem resposta. Entrega e leitura dependem dos recibos (trackDelivery na configuração do gateway).',
  })
  @IsIn(COPY_MODES, { message: MODES_MESSAGE })
  contacts!: CopyMode;
}

export class SkippedContactsResponse {
  @ApiProperty({
    example: 2,
    description: 'Na lista de bloqueio da empresa (manual ou importação), quando ela se aplica',
  })
  blocked!: number;
  @ApiProperty({
    example: 1,
    description: 'Pediram para sair respondendo uma palavra de descadastro',
  })
  optedOut!: number;
}

/** The copy, and what became of the original's contacts the mode picked. */
export class CampaignCopyResponse extends CampaignResponse {
  @ApiProperty({ example: 118, description: 'Contatos copiados (iguais a totalContacts)' })
  copiedContacts!: number;
  @ApiProperty({
    type: SkippedContactsResponse,
    description:
      'Contatos escolhidos pelo modo e deixados de fora (a soma é blockedContactsRemoved)',
  })
  skippedContacts!: SkippedContactsResponse;
}
