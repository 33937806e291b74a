import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCompany, TenantScoped } from './guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { CompanySettingsService } from '../application/company-settings.service';
import {
  CompanySettingsResponse,
  toCompanySettingsResponse,
  UpdateCompanySettingsDto,
} from './company-settings.dto';

@ApiTags('Empresa')
@TenantScoped()
@Controller('api/companies/:companyId/settings')
export class CompanySettingsController {
  constructor(private readonly settings: CompanySettingsService) {}

  @Get()
  @ApiOperation({ summary: 'Recursos ativos da empresa' })
  @ApiOkResponse({ type: CompanySettingsResponse })
  async get(@CurrentCompany() company: CompanySession): Promise<CompanySettingsResponse> {
    return toCompanySettingsResponse(await this.settings.get(company.companyId));
  }

  @Patch()
  @ApiOperation({
    summary:
      'Liga/desliga o bloqueio inteligente e as enquetes; palavras e resposta de descadastro',
  })
  @ApiOkResponse({ type: CompanySettingsResponse })
  async update(
    @CurrentCompany() company: CompanySession,
    @Body() body: UpdateCompanySettingsDto,
  ): Promise<CompanySettingsResponse> {
    return toCompanySettingsResponse(await this.settings.change(company.companyId, body));
  }
}
