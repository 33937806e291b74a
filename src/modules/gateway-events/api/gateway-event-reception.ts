import { Injectable, Logger } from '@nestjs/common';
import { secretsEqual } from '../../../common/crypto/hashing';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import type { GatewayEventRefusal } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import {
  EventsSource,
  GatewayEventsSources,
} from '../../gateway/application/gateway-events-sources';
import type { EventsRefusal } from '../../gateway/domain/gateway-config.entity';
import { GatewayEventEnvelope, parseEnvelope, unauthorizedEvent } from '../domain/gateway-event';
import { GatewayEventIntake } from '../application/gateway-event-intake';

/**
 * What the events route does with a body once the gate found its configuration: the event is
 * checked field by field, its instance and `apikey` matched against the configuration, and it
 * is stored before the answer. Shared by the controller and GatewayEventsRoute, which serves
 * the same route ahead of Nest's router.
 */
@Injectable()
export class GatewayEventReception {
  private readonly logger = new Logger(GatewayEventReception.name);

  constructor(
    private readonly sources: GatewayEventsSources,
    private readonly intake: GatewayEventIntake,
    private readonly metrics: Metrics,
  ) {}

  /** Resolves once the event is stored (or is one the service ignores); throws the error to answer. */
  async receive(source: EventsSource, body: unknown): Promise<void> {
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
