import { Body, Controller, Get, Param, Patch, Put } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from './guards/auth.decorators';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { CompaniesAdminService } from '../application/companies-admin.service';
import { ReplaceSubscriptionDto, UpdateCompanyAdminDto } from './admin-companies.dto';
import { AdminCompanyResponse, toAdminCompanyResponse } from './admin-companies.response';

@ApiTags('Administração')
@AdminOnly()
@ApiHeader({ name: 'ACCESS_TOKEN', required: true, description: 'Bearer <ADMIN_PASSWORD>' })
@ApiErrors(404)
@Controller('api/admin/companies')
export class AdminCompaniesController {
  constructor(private readonly admin: CompaniesAdminService) {}

  @Get()
  @ApiOperation({ summary: 'Todas as empresas' })
  @ApiOkResponse({ type: AdminCompanyResponse, isArray: true })
  async list(): Promise<AdminCompanyResponse[]> {
    return (await this.admin.list()).map(toAdminCompanyResponse);
  }

  @Get(':companyId')
  @ApiOperation({ summary: 'Uma empresa' })
  @ApiOkResponse({ type: AdminCompanyResponse })
  async get(@Param('companyId', IdParamPipe) companyId: number): Promise<AdminCompanyResponse> {
    return toAdminCompanyResponse(await this.admin.get(companyId));
  }

  @Patch(':companyId')
  @ApiOperation({
    summary: 'Ativa/desativa, muda limites e recursos; null volta ao padrão do sistema',
  })
  @ApiOkResponse({ type: AdminCompanyResponse })
  async update(
    @Param('companyId', IdParamPipe) companyId: number,
    @Body() body: UpdateCompanyAdminDto,
  ): Promise<AdminCompanyResponse> {
    return toAdminCompanyResponse(await this.admin.update(companyId, body));
  }

  @Put(':companyId/subscription')
  @ApiOperation({ summary: 'Grava a assinatura (onde o checkout de pagamento escreveria)' })
  @ApiOkResponse({ type: AdminCompanyResponse })
  async replaceSubscription(
    @Param('companyId', IdParamPipe) companyId: number,
    @Body() body: ReplaceSubscriptionDto,
  ): Promise<AdminCompanyResponse> {
    return toAdminCompanyResponse(
      await this.admin.replaceSubscription(companyId, {
        subscriptionId: body.subscriptionId ?? null,
        payerId: body.payerId ?? null,
        subscriptionStatus: body.subscriptionStatus ?? null,
        subscriptionReason: body.subscriptionReason ?? null,
        externalReference: body.externalReference ?? null,
        preapprovalPlanId: body.preapprovalPlanId ?? null,
        subscriptionStartDate: body.subscriptionStartDate
          ? new Date(body.subscriptionStartDate)
          : null,
        nextPaymentDate: body.nextPaymentDate ? new Date(body.nextPaymentDate) : null,
        collectorId: body.collectorId ?? null,
        subscriptionInitPoint: body.subscriptionInitPoint ?? null,
        transactionAmount: body.transactionAmount ?? null,
        frequencyType: body.frequencyType ?? null,
      }),
    );
  }
}
