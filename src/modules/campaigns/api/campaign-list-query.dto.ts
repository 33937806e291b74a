import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { ToInt } from '../../../common/http/query-params';
import { CAMPAIGN_STATUSES, CampaignStatus } from '../domain/campaign-status';
import { CampaignContactsQueryDto } from './campaign-queries.dto';

/** A day as the list and the reports take it: `YYYY-MM-DD`, local to APP_TIMEZONE. */
function LocalDateParam(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ example: '2026-11-27', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description }),
    IsOptional(),
    IsString({ message: 'deve ser uma data no formato AAAA-MM-DD' }),
    Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'deve ser uma data no formato AAAA-MM-DD' }),
  );
}

/** The campaign list's filters, with the contacts' `page` and `size`. */
export class CampaignListQueryDto extends CampaignContactsQueryDto {
  @ApiPropertyOptional({ enum: CAMPAIGN_STATUSES })
  @IsOptional()
  @IsIn(CAMPAIGN_STATUSES, { message: `deve ser um de: ${CAMPAIGN_STATUSES.join(', ')}` })
  status?: CampaignStatus;

  @ApiPropertyOptional({
    maxLength: 100,
    description: 'Parte do nome, sem diferença de maiúsculas nem de acentos',
  })
  @IsOptional()
  @IsString({ message: 'deve ser um texto' })
  @MaxLength(100, { message: 'deve ter no máximo 100 caracteres' })
  search?: string;

  @LocalDateParam('Criadas a partir deste dia (local, APP_TIMEZONE), inclusive')
  from?: string;

  @LocalDateParam('Criadas até este dia (local, APP_TIMEZONE), inclusive')
  to?: string;

  @ApiPropertyOptional({
    minimum: 1,
    description: 'Campanhas que enviam por esta configuração, também os pools que a têm',
  })
  @IsOptional()
  @ToInt()
  @IsInt({ message: 'deve ser um número inteiro' })
  @Min(1, { message: 'deve ser um número inteiro positivo' })
  @Max(2_147_483_647, { message: 'deve ser um número inteiro positivo' })
  gatewayConfigId?: number;
}

/** GET /api/campaigns/report: local days, both counted. */
export class CampaignReportQueryDto {
  @LocalDateParam('Primeiro dia (local, APP_TIMEZONE); padrão: 29 dias antes de to')
  from?: string;

  @LocalDateParam('Último dia (local, APP_TIMEZONE), inclusive; padrão: hoje')
  to?: string;
}
