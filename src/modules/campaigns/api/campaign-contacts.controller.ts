import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { AppConfig } from '../../../config/app-config.service';
import { CampaignContactsService } from '../application/campaign-contacts.service';
import { CampaignContactsQueryDto } from './campaign-queries.dto';
import { CampaignContactResponse, toCampaignContactResponse } from './campaign-contact.response';

@ApiTags('Campanhas')
@CompanyAuthenticated()
@Controller('api/campaigns')
export class CampaignContactsController {
  constructor(
    private readonly campaignContacts: CampaignContactsService,
    private readonly config: AppConfig,
  ) {}

  @Get(':id/contacts')
  @ApiOperation({
    summary: 'Contatos da campanha (lista simples; página menor que size é a última)',
  })
  @ApiOkResponse({ type: CampaignContactResponse, isArray: true })
  @ApiHeader({
    name: 'X-Total-Count',
    description: 'Total de contatos da campanha (na resposta)',
    required: false,
  })
  async contacts(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Query() query: CampaignContactsQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CampaignContactResponse[]> {
    const { items, total } = await this.campaignContacts.page(
      company,
      id,
      query.page ?? 0,
      query.size ?? 100,
    );
    response.setHeader('X-Total-Count', String(total));
    return items.map((row) => toCampaignContactResponse(row, this.config.appTimezone));
  }
}
