import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { AppConfig } from '../../../config/app-config.service';
import { CampaignContactsService } from '../application/campaign-contacts.service';
import { contactSearchOf, type CampaignContactFilters } from '../domain/campaign-contact-filters';
import {
  CampaignContactFiltersDto,
  CampaignContactsExportQueryDto,
  CampaignContactsPageQueryDto,
} from './campaign-queries.dto';
import { CampaignContactResponse, toCampaignContactResponse } from './campaign-contact.response';
import {
  CONTACTS_EXPORT_CONTENT_TYPES,
  writeContactsExport,
} from './campaign-contacts-export.writer';

function filtersOf(query: CampaignContactFiltersDto): CampaignContactFilters {
  return {
    status: query.status,
    receipt: query.receipt,
    failureKind: query.failureKind,
    search: contactSearchOf(query.search),
  };
}

const EXPORT_FILE = { schema: { type: 'string', format: 'binary' } };

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
    summary:
      'Contatos da campanha, filtrados por status, recibo, tipo de falha e busca (lista simples; página menor que size é a última)',
    description:
      'Os filtros se combinam (E). Num pool, os contatos de todos os números. Campanha inexistente: 400.',
  })
  @ApiOkResponse({ type: CampaignContactResponse, isArray: true })
  @ApiErrors(403)
  @ApiHeader({
    name: 'X-Total-Count',
    description: 'Total de contatos que os filtros encontram (na resposta)',
    required: false,
  })
  async contacts(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Query() query: CampaignContactsPageQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CampaignContactResponse[]> {
    const { items, total } = await this.campaignContacts.page(company, id, filtersOf(query), {
      page: query.page ?? 0,
      size: query.size ?? 100,
    });
    response.setHeader('X-Total-Count', String(total));
    return items.map((row) => toCampaignContactResponse(row, this.config.appTimezone));
  }

  @Get(':id/contacts/export')
  @ApiOperation({
    summary:
      'Exporta os contatos da campanha em CSV ou XLSX (todos, ou os que os filtros encontram)',
    description:
      'Colunas: Telefone, Nome, Status, Tipo de falha, Motivo da falha, Remetente, Enviada em, Entregue em, Lida em, ' +
      'Respondida em, Descadastrado (sim/não). CSV em UTF-8 com BOM, separado por ";", datas dd/MM/yyyy HH:mm:ss no fuso ' +
      'da aplicação; um valor que começaria uma fórmula (=, +, -, @, tab) leva um apóstrofo na frente. Campanha inexistente: 400.',
  })
  @ApiOkResponse({
    description: 'O arquivo (Content-Disposition: attachment)',
    content: {
      [CONTACTS_EXPORT_CONTENT_TYPES.csv]: EXPORT_FILE,
      [CONTACTS_EXPORT_CONTENT_TYPES.xlsx]: EXPORT_FILE,
    },
  })
  @ApiErrors(403)
  async export(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Query() query: CampaignContactsExportQueryDto,
    @Res() response: Response,
  ): Promise<void> {
    const batches = await this.campaignContacts.export(company, id, filtersOf(query));
    await writeContactsExport(
      query.format,
      batches,
      this.config.appTimezone,
      response,
      `campanha-${id}-contatos`,
    );
  }
}
