import { Body, Controller, HttpCode, Logger, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '../../auth/api/guards/auth.decorators';
import { secretsEqual } from '../../../common/crypto/hashing';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import type { GatewayEventRefusal } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import {
  EventsSource,
  GatewayEventsSources,
} from '../../gateway/application/gateway-events-sources';
import type { EventsRefusal } from '../../gateway/domain/gateway-config.entity';
import { GatewayEventEnvelope, parseEnvelope, unauthorizedEvent } from '../domain/gateway-event';
import { GatewayEventIntake } from '../application/gateway-event-intake';
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
  private readonly logger = new Logger(GatewayEventsController.name);

  constructor(
    private readonly sources: GatewayEventsSources,
    private readonly intake: GatewayEventIntake,
    private readonly metrics: Metrics,
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
    @Req() request: Request,
    @Body() body: unknown,
  ): Promise<GatewayEventAcknowledgement> {
    const source = eventsSourceOf(request);
    if (source?.gatewayConfigId !== configurationId) {
      throw unauthorizedEvent();
    }
    const envelope = this.envelopeOf(body);
    if (envelope) {
      await this.authenticate(source, envelope);
      await this.intake.store({
        gatewayConfigId: source.gatewayConfigId,
        companyId: source.companyId,
        event: envelope.event,
        payload: { data: envelope.data, at: envelope.at.toISOString() },
      });
    }
    return { received: true };
  }

  private envelopeOf(body: unknown): GatewayEventEnvelope | null {
    try {
      return parseEnvelope(body, new Date());
    } catch (error) {
      if (error instanceof ValidationFailedError) {
        this.metrics.countGatewayEventRefused('invalid');
      }
      throw error;
    }
  }

  /** The right secret, but another instance or key: refused, counted and shown on the configuration. */
  private async authenticate(source: EventsSource, envelope: GatewayEventEnvelope): Promise<void> {
    if (envelope.instance !== source.instance) {
      await this.refuse(source, 'INSTANCE_MISMATCH', 'instance');
    }
    const apikey = envelope.apikey;
    if (
      apikey &&
      !source.apiKeys.some((key) => secretsEqual(key, apikey)) &&
      !(await this.sources.learnInstanceToken(source.gatewayConfigId, apikey))
    ) {
      await this.refuse(source, 'APIKEY_MISMATCH', 'apikey');
    }
  }

  /** Logged without the body or the keys: they carry customers' numbers and credentials. */
  private async refuse(
    source: EventsSource,
    refusal: EventsRefusal,
    reason: GatewayEventRefusal,
  ): Promise<never> {
    this.metrics.countGatewayEventRefused(reason);
    this.logger.warn(
      { configurationId: source.gatewayConfigId, refused: refusal },
      reason === 'apikey'
        ? "Gateway event refused: its apikey is neither the configuration's key nor the instance's token"
        : "Gateway event refused: it names another instance than the configuration's",
    );
    await this.sources.recordEventsRefused(source.gatewayConfigId, refusal);
    throw unauthorizedEvent();
  }
}
