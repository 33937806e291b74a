import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CAMPAIGN_STATUSES, CampaignStatus } from '../domain/campaign-status';
import { CampaignContactsQueryDto } from './campaign-queries.dto';

/** The campaign list's filters, with the contacts' `page` and `size`. */
export class CampaignListQueryDto extends CampaignContactsQueryDto {
  @ApiPropertyOptional({ enum: CAMPAIGN_STATUSES })
  @IsOptional()
  @IsIn(CAMPAIGN_STATUSES, { message: `deve ser um de: ${CAMPAIGN_STATUSES.join(', ')}` })
  status?: CampaignStatus;
}
