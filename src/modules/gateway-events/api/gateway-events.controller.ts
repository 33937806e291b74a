import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../auth/api/guards/auth.decorators';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import { unauthorizedEvent } from '../domain/gateway-event';
import { GatewayEventReception } from './gateway-event-reception';
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
 * the background.
 */
@ApiTags('Eventos do gateway')
@Public()
@ApiErrors(400, 401, 429, 503)
@Controller('api/gateway-events')
export class GatewayEventsController {
  constructor(private readonly reception: GatewayEventReception) {}

  @Post(':configurationId')
  @HttpCode(200)
  @ApiOperation({ summary: 'Recebe um evento do Evolution API (webhook registrado pelo serviço)' })
  @ApiHeader({
    name: EVENTS_SECRET_HEADER,
    required: true,
    description: 'Segredo gerado no registro',
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
