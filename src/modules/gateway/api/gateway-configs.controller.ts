import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors, ErrorResponse } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { GatewayConfigsService } from '../application/gateway-configs.service';
import { GatewayTemplatesService } from '../application/gateway-templates.service';
import type { GatewayConfig } from '../domain/gateway-config.entity';
import {
  CreateGatewayConfigDto,
  TemplatesQueryDto,
  UpdateGatewayConfigDto,
} from './gateway-configs.dto';
import {
  GatewayConfigResponse,
  GatewayStatusResponse,
  toGatewayConfigResponse,
  toGatewayStatusResponse,
  toGatewayUsageResponse,
  GatewayUsageResponse,
  GatewayConfigDayResponse,
  toGatewayConfigDayResponse,
  GatewayTemplateResponse,
  toGatewayTemplateResponse,
} from './gateway-configs.response';

@ApiTags('Configurações de gateway')
@CompanyAuthenticated()
@Controller('api/gateway-configs')
export class GatewayConfigsController {
  constructor(
    private readonly configs: GatewayConfigsService,
    private readonly templates: GatewayTemplatesService,
  ) {}

  private respond(config: GatewayConfig): GatewayConfigResponse {
    return toGatewayConfigResponse(config, this.configs.eventsUrlOf(config.id));
  }

  @Post()
  @ApiOperation({
    summary: 'Salva um gateway (Evolution API v2 ou a API oficial do WhatsApp, provider CLOUD_API)',
    description:
      'A chave de API (o token de acesso e o segredo do app em CLOUD_API) é guardada criptografada e nunca é devolvida. A URL deve ser http(s) e não pode ' +
      'apontar para endereços link-local ou de metadados de nuvem (nem para redes privadas com ' +
      'OUTBOUND_DENY_PRIVATE=true): 400. Em CLOUD_API, o número é consultado na Graph API antes de salvar ' +
      '(token recusado ou número desconhecido: 400) e a resposta traz webhookUrl e webhookVerifyToken para o painel da Meta.',
  })
  @ApiCreatedResponse({ type: GatewayConfigResponse })
  async create(
    @CurrentCompany() company: CompanySession,
    @Body() body: CreateGatewayConfigDto,
  ): Promise<GatewayConfigResponse> {
    return this.respond(await this.configs.create(company.companyId, body));
  }

  @Get()
  @ApiOperation({ summary: 'Gateways da empresa, mais recentes primeiro' })
  @ApiOkResponse({ type: GatewayConfigResponse, isArray: true })
  async list(@CurrentCompany() company: CompanySession): Promise<GatewayConfigResponse[]> {
    return (await this.configs.list(company.companyId)).map((config) => this.respond(config));
  }

  /** Declared before the `:id` routes, which would take `usage` for an id (400). */
  @Get('usage')
  @ApiOperation({
    summary: 'Uso de hoje de todos os gateways da empresa, por ordem de id',
    description:
      'Para cada gateway, os mesmos números de GET /api/gateway-configs/{id}/usage, com gatewayConfigId, name e instance. Lista vazia quando a empresa não tem gateway.',
  })
  @ApiOkResponse({ type: GatewayConfigDayResponse, isArray: true })
  async companyUsage(
    @CurrentCompany() company: CompanySession,
  ): Promise<GatewayConfigDayResponse[]> {
    return (await this.configs.companyUsage(company.companyId)).map(toGatewayConfigDayResponse);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Um gateway' })
  @ApiOkResponse({ type: GatewayConfigResponse })
  @ApiErrors(404)
  async get(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<GatewayConfigResponse> {
    return this.respond(await this.configs.get(company.companyId, id));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Altera os campos enviados (atualização parcial)' })
  @ApiOkResponse({ type: GatewayConfigResponse })
  @ApiErrors(404)
  async update(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateGatewayConfigDto,
  ): Promise<GatewayConfigResponse> {
    return this.respond(await this.configs.update(company.companyId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove um gateway',
    description:
      '400 enquanto uma campanha ativa, agendada ou pausada, ou uma automação ativa, o usa.',
  })
  @ApiNoContentResponse({ description: 'Removido' })
  @ApiErrors(404)
  async delete(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<void> {
    await this.configs.delete(company.companyId, id);
  }

  @Delete(':id/restriction')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Encerra o bloqueio de contato com quem não conversa com o número (erro 463)',
    description:
      'As campanhas e automações que esperavam o fim do bloqueio voltam a enviar. Sem bloqueio, não muda nada (204).',
  })
  @ApiNoContentResponse({ description: 'Encerrado' })
  @ApiErrors(404)
  async liftRestriction(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<void> {
    await this.configs.liftReachOutLock(company.companyId, id);
  }

  @Get(':id/usage')
  @ApiOperation({
    summary:
      'Uso da instância hoje: mensagens, limite diário e aquecimento, remetentes ativos, próximo horário',
    description:
      'Mostra por que o envio espera: a instância envia uma mensagem por vez, com a pausa da campanha entre duas, e no máximo o limite do dia (o menor entre dailyLimit e o aquecimento).',
  })
  @ApiOkResponse({ type: GatewayUsageResponse })
  @ApiErrors(404)
  async usage(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<GatewayUsageResponse> {
    return toGatewayUsageResponse(await this.configs.instanceUsage(company.companyId, id));
  }

  @Get(':id/templates')
  @ApiOperation({
    summary: 'Modelos de mensagem (templates) da conta do WhatsApp Business (CLOUD_API)',
    description:
      'A lista guardada da última leitura na Meta; lida na Meta agora com refresh=true ou quando ainda não há nenhuma. ' +
      'Criar e editar modelos continua nas ferramentas da Meta. 400 para uma configuração EVOLUTION.',
  })
  @ApiOkResponse({ type: GatewayTemplateResponse, isArray: true })
  @ApiErrors(404)
  async listTemplates(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Query() query: TemplatesQueryDto,
  ): Promise<GatewayTemplateResponse[]> {
    const list = await this.templates.list(company.companyId, id, query.refresh === 'true');
    return list.map(toGatewayTemplateResponse);
  }

  @Get(':id/status')
  @ApiOperation({
    summary: 'Estado da conexão da instância, consultado no gateway a cada chamada',
    description:
      '400 quando o gateway recusa a chave de API, não conhece a instância ou a URL não é permitida; ' +
      '503 quando o gateway falha ou não responde.',
  })
  @ApiOkResponse({ type: GatewayStatusResponse })
  @ApiErrors(404)
  @ApiResponse({
    status: 503,
    description: 'Gateway indisponível ou com falha',
    type: ErrorResponse,
  })
  async status(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<GatewayStatusResponse> {
    return toGatewayStatusResponse(await this.configs.status(company.companyId, id));
  }
}
