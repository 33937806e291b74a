import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCompany, TenantScoped } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { Clock } from '../../../common/time/clock';
import { WebhooksService } from '../application/webhooks.service';
import { DEFAULT_DELIVERY_PAGE_SIZE, DeliveryLogQueryDto, PutWebhookDto } from './webhook.dto';
import {
  toWebhookAttemptResponse,
  toWebhookDeliveryResponse,
  toWebhookResponse,
  toWebhookWithSecretResponse,
  WebhookAttemptResponse,
  WebhookDeliveryResponse,
  WebhookResponse,
  WebhookWithSecretResponse,
} from './webhook.response';

const DELIVERY_DESCRIPTION =
  'Cada evento de campanha (campaign.started, campaign.progress a cada 10 %, campaign.completed, ' +
  'campaign.failed, campaign.retried) é enviado por POST JSON ao url, no padrão Standard Webhooks: cabeçalhos ' +
  'webhook-id (o mesmo em todas as tentativas do evento: use-o para descartar repetidos), ' +
  'webhook-timestamp (segundos Unix da tentativa) e webhook-signature ("v1," + base64 do ' +
  'HMAC-SHA256 de "id.timestamp.corpo", com os bytes da chave: o base64 depois de "whsec_"). ' +
  'Depois de uma troca de segredo, por 24 h o cabeçalho traz duas assinaturas separadas por ' +
  'espaço (nova e anterior); aceite a que conferir. Resposta 2xx = entregue; qualquer outra, ou ' +
  'nenhuma em 10 s, é repetida após 10 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h e ' +
  '8 h 17 min (24 h ao todo), e então a entrega fica FAILED. Entrega pelo menos uma vez; os ' +
  'eventos de uma campanha chegam em ordem (o seguinte espera o anterior ser entregue ou falhar ' +
  'de vez). Corpo: {event, campaignId, companyId, timestamp, stats: {total, sent, failed, ' +
  'pending, progressPercentage}}; campaign.progress traz milestone (10 a 100), ' +
  'campaign.completed traz stats.duration (HH:mm:ss), campaign.failed traz reason e ' +
  'campaign.retried traz retriedContacts.';

@ApiTags('Webhooks')
@TenantScoped()
@ApiParam({ name: 'companyId', type: Number, description: 'Empresa do token' })
@Controller('api/companies/:companyId/webhook')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'O webhook da empresa (sem o segredo)',
    description: DELIVERY_DESCRIPTION,
  })
  @ApiOkResponse({ type: WebhookResponse })
  @ApiErrors(404)
  async get(@CurrentCompany() company: CompanySession): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.get(company.companyId), this.clock.now());
  }

  @Put()
  @ApiOperation({
    summary: 'Cria (201, com o segredo, mostrado só desta vez) ou substitui (200) o webhook',
    description:
      'Substituição: campos omitidos voltam ao padrão (events: os quatro; isActive: true); o ' +
      'segredo não muda. Entregas à espera de nova tentativa passam a valer já, para o novo url. ' +
      'Com isActive false, nenhuma entrega é criada nem tentada; as pendentes esperam a ' +
      'reativação e falham se o evento fizer 24 h. ' +
      DELIVERY_DESCRIPTION,
  })
  @ApiCreatedResponse({ type: WebhookWithSecretResponse, description: 'Criado; traz secret' })
  @ApiOkResponse({ type: WebhookResponse, description: 'Substituído' })
  async put(
    @CurrentCompany() company: CompanySession,
    @Body() body: PutWebhookDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookWithSecretResponse> {
    const { webhook, secret, created } = await this.webhooks.put(company.companyId, body);
    response.status(created ? 201 : 200);
    return toWebhookWithSecretResponse(webhook, secret, this.clock.now());
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove o webhook, suas entregas pendentes e o registro de entregas',
  })
  @ApiNoContentResponse({ description: 'Removido' })
  @ApiErrors(404)
  async delete(@CurrentCompany() company: CompanySession): Promise<void> {
    await this.webhooks.delete(company.companyId);
  }

  @Post('rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Gera um novo segredo (mostrado só nesta resposta)',
    description:
      'O novo segredo assina a partir de agora. Por 24 h (previousSecretValidUntil) as entregas ' +
      'levam também a assinatura do segredo anterior, para o receptor trocar sem perder eventos.',
  })
  @ApiOkResponse({ type: WebhookWithSecretResponse })
  @ApiErrors(404)
  async rotateSecret(
    @CurrentCompany() company: CompanySession,
  ): Promise<WebhookWithSecretResponse> {
    const { webhook, secret } = await this.webhooks.rotateSecret(company.companyId);
    return toWebhookWithSecretResponse(webhook, secret, this.clock.now());
  }

  @Get('deliveries')
  @ApiOperation({
    summary: 'Entregas recentes, mais novas primeiro (lista simples; total em X-Total-Count)',
    description:
      `Página a partir de 0; size padrão ${DEFAULT_DELIVERY_PAGE_SIZE}, no máximo 100. Filtros ` +
      'opcionais status e campaignId. status: PENDING (aguardando tentativa; nextAttemptAt diz ' +
      'quando), SENDING (tentativa em curso), DELIVERED, FAILED (desistiu).',
  })
  @ApiOkResponse({ type: WebhookDeliveryResponse, isArray: true })
  @ApiHeader({
    name: 'X-Total-Count',
    description: 'Total de entregas do filtro (na resposta)',
    required: false,
  })
  @ApiErrors(404)
  async deliveries(
    @CurrentCompany() company: CompanySession,
    @Query() query: DeliveryLogQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<WebhookDeliveryResponse[]> {
    const { items, total } = await this.webhooks.deliveryLog(company.companyId, {
      page: query.page ?? 0,
      size: query.size ?? DEFAULT_DELIVERY_PAGE_SIZE,
      status: query.status,
      campaignId: query.campaignId,
    });
    response.setHeader('X-Total-Count', String(total));
    return items.map(toWebhookDeliveryResponse);
  }

  @Get('deliveries/:deliveryId/attempts')
  @ApiOperation({
    summary: 'Cada tentativa de uma entrega, da primeira à última: código HTTP ou erro, duração',
  })
  @ApiParam({ name: 'deliveryId', type: Number })
  @ApiOkResponse({ type: WebhookAttemptResponse, isArray: true })
  @ApiErrors(404)
  async attempts(
    @CurrentCompany() company: CompanySession,
    @Param('deliveryId', IdParamPipe) deliveryId: number,
  ): Promise<WebhookAttemptResponse[]> {
    return (await this.webhooks.attempts(company.companyId, deliveryId)).map(
      toWebhookAttemptResponse,
    );
  }
}
