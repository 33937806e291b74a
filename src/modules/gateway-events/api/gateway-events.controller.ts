import { Body, Controller, Get, Header, HttpCode, Param, Post, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../auth/api/guards/auth.decorators';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import { unauthorizedEvent } from '../domain/gateway-event';
import { GatewayEventReception } from './gateway-event-reception';
import { META_SIGNATURE_HEADER, MetaWebhookReception } from './meta-webhook-reception';
import { eventsSourceOf } from './gateway-events.gate';

export class GatewayEventAcknowledgement {
  received!: boolean;
}

/**
 * Where the gateway (Evolution API) delivers an instance's events once delivery tracking is on
 * (`trackDelivery` on the gateway configuration). Authenticated by the secret header the
 * service registered (GatewayEventsGate, before the body is read); the instance name and the
 * event's `apikey` (the configuration's key or the instance's own token) must match it too.
 * The event is checked field by field and stored before it is acknowledged, and processed in
 * the background. For a Cloud API configuration the same route is Meta's webhook: its GET
 * verification and its signed POSTs are served ahead of Express (MetaWebhookRoute), which
 * needs the raw body; the handlers here describe them and answer what reaches Express.
 */
@ApiTags('Eventos do gateway')
@Public()
@ApiErrors(400, 401, 429, 503)
@Controller('api/gateway-events')
export class GatewayEventsController {
  constructor(
    private readonly reception: GatewayEventReception,
    private readonly meta: MetaWebhookReception,
  ) {}

  /** Only a Cloud API configuration's verification is answered with its challenge (ahead of Express). */
  @Get(':configurationId')
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiOperation({
    summary: 'Verificação do webhook da Meta (configuração CLOUD_API): devolve hub.challenge',
  })
  @ApiQuery({ name: 'hub.mode', required: true, schema: { type: 'string', enum: ['subscribe'] } })
  @ApiQuery({
    name: 'hub.verify_token',
    required: true,
    description: 'O webhookVerifyToken da configuração',
  })
  @ApiQuery({ name: 'hub.challenge', required: true })
  @ApiOkResponse({
    description: 'O hub.challenge recebido',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiErrors(403)
  verify(@Param('configurationId', IdParamPipe) configurationId: number): string {
    // What reaches Express is no Cloud API configuration's request (MetaWebhookRoute took those).
    return this.meta.verify(null, new URLSearchParams(`id=${configurationId}`));
  }

  @Post(':configurationId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Recebe um evento do Evolution API (webhook registrado pelo serviço)' })
  @ApiHeader({
    name: EVENTS_SECRET_HEADER,
    required: true,
    description: 'Segredo gerado no registro',
  })
  @ApiHeader({
    name: META_SIGNATURE_HEADER,
    required: false,
    description:
      'Configuração CLOUD_API: sha256=<HMAC-SHA256 do corpo com o app secret>, no lugar do segredo acima',
  })
  @ApiBody({ schema: { type: 'object', additionalProperties: true } })
  @ApiOkResponse({ schema: { type: 'object', properties: { received: { type: 'boolean' } } } })
  async receive(
    @Param('configurationId', IdParamPipe) configurationId: number,
    @Req() request: Request,
    @Body() body: unknown,
  ): Promise<GatewayEventAcknowledgement> {
    const source = eventsSourceOf(request);
    if (source?.gatewayConfigId !== configurationId) {
      throw unauthorizedEvent();
    }
    await this.reception.receive(source, body);
    return { received: true };
  }
}
