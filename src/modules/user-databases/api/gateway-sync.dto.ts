import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { IsOmittable } from '../../../common/http/validation';
import {
  OptionalDatabaseDescription,
  OptionalDatabaseId,
  OptionalDatabaseName,
} from './database-fields.dto';

const BOOLEAN = { message: 'deve ser verdadeiro ou falso' };
const ID = { message: 'deve ser um id válido' };

export class GatewaySyncDto {
  @OptionalDatabaseId('Atualiza esta base GATEWAY; sem ele, cria uma')
  databaseId?: number;

  @ApiProperty({ example: 3 })
  @IsInt({ message: 'é obrigatório e deve ser um número inteiro' })
  @Min(1, ID)
  @Max(2_147_483_647, ID)
  gatewayConfigId!: number;

  @OptionalDatabaseName({ example: 'Contatos do WhatsApp', description: 'Obrigatório ao criar' })
  name?: string;

  @OptionalDatabaseDescription()
  description?: string;

  @ApiPropertyOptional({
    default: false,
    description: 'Cada grupo vira um registro sem telefone (type group, name = assunto)',
  })
  @IsOmittable()
  @IsBoolean(BOOLEAN)
  includeGroups?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Membros de todos os grupos; LIDs usam o phoneNumber informado',
  })
  @IsOmittable()
  @IsBoolean(BOOLEAN)
  includeGroupMembers?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Conversas de quem não está nos contatos (findChats, isSaved falso)',
  })
  @IsOmittable()
  @IsBoolean(BOOLEAN)
  includeUnsavedContacts?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Mantém quem não tem telefone utilizável (ex.: LID sem número)',
  })
  @IsOmittable()
  @IsBoolean(BOOLEAN)
  includeContactsWithoutPhone?: boolean;

  @ApiPropertyOptional({
    default: true,
    description: 'Mantém a primeira ocorrência de cada telefone (ou JID, sem telefone)',
  })
  @IsOmittable()
  @IsBoolean(BOOLEAN)
  deduplicate?: boolean;
}
