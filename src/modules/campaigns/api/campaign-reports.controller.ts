import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import { AppConfig } from '../../../config/app-config.service';
import {
  CampaignReport,
  CampaignReportsService,
  CompanyReport,
} from '../application/campaign-reports.service';
import { CampaignReportQueryDto } from './campaign-list-query.dto';
import {
  CampaignReportResponse,
  CompanyReportResponse,
  toCampaignFunnelResponse,
  toFunnelResponse,
} from './campaign-report.response';

/**
 * The reports. Registered before CampaignsController, so that `GET /api/campaigns/report`
 * reaches this controller rather than `GET /api/campaigns/:id`.
 */
@ApiTags('Campanhas')
@CompanyAuthenticated()
@Controller('api/campaigns')
export class CampaignReportsController {
  constructor(
    private readonly reports: CampaignReportsService,
    private readonly config: AppConfig,
  ) {}

  @Get('report')
  @ApiOperation({
    summary: 'Relatório da empresa por dia: o funil de campanhas e execuções de automação, somado',
    description:
      'from e to são dias locais (APP_TIMEZONE) no formato AAAA-MM-DD, ambos incluídos; padrão: os últimos 30 dias até hoje; no máximo 92 dias. Um contato conta no dia do envio (SENT) ou da falha (FAILED); entregas, leituras, respostas e descadastros contam no dia do envio da mensagem. Contatos pendentes não entram. 400: data inválida, to antes de from, período longo demais.',
  })
  @ApiOkResponse({ type: CompanyReportResponse })
  @ApiErrors(400)
  async companyReport(
    @CurrentCompany() company: CompanySession,
    @Query() query: CampaignReportQueryDto,
  ): Promise<CompanyReportResponse> {
    return this.companyResponse(await this.reports.companyReport(company, query.from, query.to));
  }

  @Get(':id/report')
  @ApiOperation({
    summary:
      'Relatório de uma campanha: funil, falhas por motivo, por número, envios por hora, duração e ritmo',
  })
  @ApiOkResponse({ type: CampaignReportResponse })
  @ApiErrors(403, 404)
  async campaignReport(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignReportResponse> {
    return this.campaignResponse(await this.reports.campaignReport(company, id));
  }

  private campaignResponse(report: CampaignReport): CampaignReportResponse {
    const local = (date: Date | null): string | null =>
      formatLocalDateTime(date, this.config.appTimezone);
    return {
      campaignId: report.campaign.id,
      name: report.campaign.name,
      status: report.campaign.status,
      funnel: toCampaignFunnelResponse(report.funnel),
      senders: report.senders.map((sender) => ({
        ...toCampaignFunnelResponse(sender),
        gatewayConfigId: sender.gatewayConfigId,
        instance: sender.instance,
        firstSendAt: local(sender.firstSendAt),
        lastSendAt: local(sender.lastSendAt),
      })),
      hours: report.hours,
      firstSendAt: local(report.firstSendAt),
      lastSendAt: local(report.lastSendAt),
      completedAt: local(report.campaign.completedAt),
      durationSeconds: report.span.durationSeconds,
      messagesPerMinute: report.span.perMinute,
      messagesPerHour: report.span.perHour,
      cost: report.cost,
    };
  }

  private companyResponse(report: CompanyReport): CompanyReportResponse {
    return {
      from: report.from,
      to: report.to,
      timezone: this.config.appTimezone,
      totals: {
        ...toFunnelResponse(report.total),
        campaigns: report.total.campaigns,
        automationRuns: report.total.automationRuns,
        cost: report.total.cost,
      },
      days: report.days.map((day) => ({
        ...toFunnelResponse(day),
        date: day.day,
        campaigns: day.campaigns,
        automationRuns: day.automationRuns,
        cost: day.cost,
      })),
    };
  }
}
