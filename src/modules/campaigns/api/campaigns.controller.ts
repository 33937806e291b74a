import { Idempotent } from '../../../common/idempotency/idempotency.interceptor';
import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CampaignCostEstimates } from '../application/campaign-cost-estimates';
import { CampaignsService } from '../application/campaigns.service';
import type { Campaign } from '../domain/campaign.entity';
import { blankTemplateWarnings } from '../domain/gateway-media-rules';
import { creationBounds } from '../domain/campaign-report';
import { CampaignListQueryDto } from './campaign-list-query.dto';
import { CampaignResponse, CampaignRetryResponse, toCampaignResponse } from './campaign.response';
import { CreateCampaignDto } from './create-campaign.dto';

@ApiTags('Campanhas')
@CompanyAuthenticated()
@Controller('api/campaigns')
export class CampaignsController {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly estimates: CampaignCostEstimates,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @Idempotent()
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Cria uma campanha: DRAFT (isDraft), SCHEDULED (scheduledFor) ou ACTIVE (envio imediato)',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404)
  async create(
    @CurrentCompany() company: CompanySession,
    @Body() body: CreateCampaignDto,
  ): Promise<CampaignResponse> {
    const campaign = await this.campaigns.create(company, body);
    const response = this.respond(campaign);
    const estimatedCost = await this.estimates.estimate(campaign);
    const warnings = blankTemplateWarnings(body);
    return {
      ...response,
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(estimatedCost ? { estimatedCost } : {}),
    };
  }

  @Get()
  @ApiOperation({
    summary: 'Campanhas da empresa, mais novas primeiro; total no cabeçalho X-Total-Count',
    description:
      'Filtros, todos juntos quando dados: status; search (parte do nome, sem diferença de maiúsculas nem de acentos); from e to (dias locais AAAA-MM-DD da criação, ambos incluídos); gatewayConfigId (campanhas que enviam por essa configuração, também os pools que a têm). Páginas de page (0) e size (padrão 100, máximo 100). 400: data inválida, to antes de from, page ou size fora da faixa, gatewayConfigId que não é número, status desconhecido.',
  })
  @ApiOkResponse({ type: CampaignResponse, isArray: true })
  @ApiHeader({
    name: 'X-Total-Count',
    description: 'Total de campanhas do filtro (na resposta)',
    required: false,
  })
  @ApiErrors(400)
  async list(
    @CurrentCompany() company: CompanySession,
    @Query() query: CampaignListQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CampaignResponse[]> {
    const { items, total } = await this.campaigns.list(company, {
      status: query.status,
      search: query.search?.trim() || undefined,
      ...creationBounds(query.from, query.to, this.config.appTimezone),
      gatewayConfigId: query.gatewayConfigId,
      page: query.page ?? 0,
      size: query.size ?? 100,
    });
    response.setHeader('X-Total-Count', String(total));
    return items.map((campaign) => this.respond(campaign));
  }

  @Get('active')
  @ApiOperation({ summary: 'Campanhas com status ACTIVE, mais novas primeiro, sem paginação' })
  @ApiOkResponse({ type: CampaignResponse, isArray: true })
  async active(@CurrentCompany() company: CompanySession): Promise<CampaignResponse[]> {
    return (await this.campaigns.active(company)).map((campaign) => this.respond(campaign));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Uma campanha' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404)
  async get(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignResponse> {
    return this.respond(await this.campaigns.get(company, id));
  }

  @Put(':id/pause')
  @ApiOperation({
    summary: 'Pausa uma campanha ACTIVE (no máximo a mensagem já entregue ao gateway ainda sai)',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404)
  async pause(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignResponse> {
    return this.respond(await this.campaigns.pause(company, id));
  }

  @Put(':id/resume')
  @ApiOperation({ summary: 'Retoma uma campanha PAUSED com os contatos pendentes' })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404)
  async resume(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignResponse> {
    return this.respond(await this.campaigns.resume(company, id));
  }

  @Put(':id/cancel')
  @ApiOperation({
    summary: 'Cancela (irreversível); estatísticas mantidas, pendentes continuam pendentes',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(404)
  async cancel(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignResponse> {
    return this.respond(await this.campaigns.cancel(company, id));
  }

  // No Idempotency-Key (as the other actions): a repeated retry sends nothing twice, since each
  // contact is retried once, and answers 409 once nothing is left to retry.
  @Post(':id/retry-failed')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Reenvia os contatos com falha temporária do gateway de uma campanha COMPLETED ou FAILED (até 7 dias depois do fim); a campanha volta a ACTIVE',
    description:
      'Voltam a PENDING, uma única vez por contato, os contatos FAILED depois de 3 tentativas que provaram que nada saiu (erros 5xx ou 429 do gateway, conexão recusada). Nunca voltam: número fora do WhatsApp, mensagem recusada pela validação do gateway, número bloqueado, mensagem em branco e resultado desconhecido (a mensagem pode ter saído). Numa campanha FAILED (credenciais recusadas, instância inexistente ou desconectada por mais de 10 minutos), os contatos que ficaram sem enviar saem também. A instância precisa estar conectada (400, como na criação). 409, sem mudar nada: status diferente de COMPLETED e FAILED, fim há mais de 7 dias, configuração do gateway removida, ou nada a reenviar. Evento de webhook campaign.retried.',
  })
  @ApiOkResponse({ type: CampaignRetryResponse })
  @ApiErrors(404, 409)
  async retryFailed(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignRetryResponse> {
    const { campaign, retried } = await this.campaigns.retryFailed(company, id);
    return { ...this.respond(campaign), retriedContacts: retried };
  }

  private respond(campaign: Campaign): CampaignResponse {
    return toCampaignResponse(campaign, this.config.appTimezone, this.clock.now());
  }
}
