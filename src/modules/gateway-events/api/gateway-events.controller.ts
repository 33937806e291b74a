import { Body, Controller, Headers, HttpCode, Logger, Param, Post } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../../auth/api/guards/auth.decorators';
import { UnauthorizedError, ValidationFailedError } from '../../../common/errors/domain-error';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { parseEnvelope } from '../domain/gateway-event';
import { GatewayEventIntake } from '../application/gateway-event-intake';

export class GatewayEventAcknowledgement {
  received!: boolean;
}

/**
 * Where the gateway (Evolution API) delivers an instance's events once delivery tracking is on
 * (`trackDelivery` on the gateway configuration). Authenticated by the secret header the
 * service registered, the instance name and the event's `apikey`; the event is stored before
 * it is acknowledged and processed in the background.
 */
@ApiTags('Eventos do gateway')
@Public()
@ApiErrors(400, 401)
@Controller('api/gateway-events')
export class GatewayEventsController {
  private readonly logger = new Logger(GatewayEventsController.name);

  constructor(
    private readonly configs: GatewayConfigsService,
    private readonly intake: GatewayEventIntake,
  ) {}

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
    @Headers(EVENTS_SECRET_HEADER) secret: string | undefined,
    @Body() body: unknown,
  ): Promise<GatewayEventAcknowledgement> {
    const receivedAt = new Date();
    const source = secret ? await this.configs.eventsSource(configurationId, secret) : null;
    const envelope = parseEnvelope(body, receivedAt);
    if (envelope === 'invalid') {
      if (!source) {
        this.refuse(configurationId, 'secret');
      }
      throw new ValidationFailedError([['event', 'não é um evento do gateway']]);
    }
    if (
      !source ||
      (envelope && envelope.instance !== source.instance) ||
      (envelope?.apikey && !sameText(envelope.apikey, source.apiKey))
    ) {
      this.refuse(configurationId, source ? 'instance or apikey' : 'secret');
    }
    if (envelope) {
      await this.intake.store({
        gatewayConfigId: source.gatewayConfigId,
        companyId: source.companyId,
        event: envelope.event,
        payload: { data: envelope.data, at: envelope.at.toISOString() },
      });
    }
    return { received: true };
  }

  /** Logged without the body: it carries customers' numbers and messages. */
  private refuse(configurationId: number, what: string): never {
    this.logger.warn({ configurationId, refused: what }, 'Gateway event refused');
    throw new UnauthorizedError('GATEWAY_EVENTS.UNAUTHORIZED', 'Evento não autorizado');
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
