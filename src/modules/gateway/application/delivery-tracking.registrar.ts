import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { secretsEqual } from '../../../common/crypto/hashing';
import { SecretBox } from '../../../common/crypto/secret-box';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { classifyAddress } from '../../../common/outbound/address-classification';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import type { GatewayConfig } from '../domain/gateway-config.entity';
import { gatewayFailure } from '../domain/gateway-config.errors';
import { GatewayError, EvolutionTarget, MessagingGateway } from '../domain/messaging-gateway';
import { GatewayConfigsRepository } from '../infrastructure/gateway-configs.repository';

/** The header the gateway sends with every event; its value is the configuration's secret. */
export const EVENTS_SECRET_HEADER = 'x-campaign-service-secret';
/** What the service listens to: receipts, replies (opt-out) and the instance's connection. */
export const TRACKED_GATEWAY_EVENTS = ['MESSAGES_UPDATE', 'MESSAGES_UPSERT', 'CONNECTION_UPDATE'];

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Binds a sealed instance token to its company, as API keys are bound. */
export function instanceTokenContext(companyId: number): string {
  return `gateway-instance-token:${companyId}`;
}

/**
 * Registers the service's own inbound URL as the instance's webhook (Evolution API
 * `POST /webhook/set`), with a secret header generated for each registration, and removes it
 * again. An instance has one webhook: a different one is replaced only when asked to.
 */
@Injectable()
export class DeliveryTrackingRegistrar {
  private readonly logger = new Logger(DeliveryTrackingRegistrar.name);

  constructor(
    private readonly gateway: MessagingGateway,
    private readonly configs: GatewayConfigsRepository,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  eventsUrlOf(configId: number): string {
    return `${this.config.publicBaseUrl}/api/gateway-events/${configId}`;
  }

  async register(config: GatewayConfig, target: EvolutionTarget, replace: boolean): Promise<void> {
    this.assertReachableByGateway(target.url);
    const url = this.eventsUrlOf(config.id);
    const current = await this.ask(() => this.gateway.findWebhook(target));
    if (current?.enabled && current.url && current.url !== url && !replace) {
      throw new ValidationFailedError([
        [
          'trackDelivery',
          `a instância já envia seus eventos para outro endereço (${hostOf(current.url)}); envie replaceGatewayWebhook: true para substituí-lo`,
        ],
      ]);
    }
    const secret = randomBytes(32).toString('base64url');
    const before = config.tracking;
    const token = await this.instanceTokenOf(config, target);
    config.startTracking(secretHash(secret), token && this.seal(config, token), this.clock.now());
    // Written (and announced to every instance) before the gateway knows the secret, so that
    // its first event is never refused; the old secret stops working here.
    await this.configs.saveTracking(config);
    try {
      await this.ask(() =>
        this.gateway.setWebhook(target, {
          enabled: true,
          url,
          headers: { [EVENTS_SECRET_HEADER]: secret },
          events: TRACKED_GATEWAY_EVENTS,
        }),
      );
    } catch (error) {
      config.restoreTracking(before);
      await this.configs.saveTracking(config);
      throw error;
    }
  }

  /**
   * Asks the gateway for the instance's token again, for an event whose apikey the
   * configuration does not know (tracking registered before tokens were learned, or the
   * instance created again): true, and the token recorded, when it is that apikey.
   */
  async learnInstanceToken(
    config: GatewayConfig,
    target: EvolutionTarget,
    apikey: string,
  ): Promise<boolean> {
    const token = await this.instanceTokenOf(config, target);
    if (!token || !secretsEqual(token, apikey)) {
      return false;
    }
    // Only into the row as it was read: tracking stopped or registered again meanwhile wins,
    // so a slow gateway answer can never bring an old secret back.
    return this.configs.recordInstanceToken(config, this.seal(config, token));
  }

  /**
   * The instance's own token when it differs from the configuration's key: Evolution puts it
   * in every event's `apikey`. Null when the gateway does not tell it; tracking works without
   * it for gateways that send no `apikey` (AUTHENTICATION_EXPOSE_IN_FETCH_INSTANCES off).
   */
  private async instanceTokenOf(
    config: GatewayConfig,
    target: EvolutionTarget,
  ): Promise<string | null> {
    const token = await this.gateway.instanceToken(target).catch((error: unknown) => {
      this.logger.warn(
        {
          configurationId: config.id,
          reason: error instanceof GatewayError ? error.kind : 'unexpected',
          httpStatus: error instanceof GatewayError ? error.httpStatus : undefined,
        },
        'Instance token not learned; events carrying it will be refused',
      );
      return null;
    });
    return token && token !== target.apiKey ? token : null;
  }

  private seal(config: GatewayConfig, token: string): string {
    return this.secrets.encrypt(token, instanceTokenContext(config.companyId));
  }

  /** Turns our webhook off; a webhook somebody else set since is left alone. */
  async unregister(config: GatewayConfig, target: EvolutionTarget): Promise<void> {
    const url = this.eventsUrlOf(config.id);
    const current = await this.ask(() => this.gateway.findWebhook(target));
    if (current?.url === url) {
      await this.ask(() =>
        this.gateway.setWebhook(target, { enabled: false, url, headers: {}, events: [] }),
      );
    }
    config.stopTracking(this.clock.now());
  }

  /** A loopback PUBLIC_BASE_URL serves a gateway on this machine, and no other. */
  private assertReachableByGateway(gatewayUrl: string): void {
    const ours = new URL(this.config.publicBaseUrl);
    if (isLoopback(ours.hostname) && !isLoopback(new URL(gatewayUrl).hostname)) {
      throw new ValidationFailedError([
        [
          'trackDelivery',
          `PUBLIC_BASE_URL (${ours.origin}) não é alcançável pelo gateway: configure um endereço público deste serviço`,
        ],
      ]);
    }
  }

  private async ask<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw error instanceof GatewayError ? gatewayFailure(error) : error;
    }
  }
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' || host.endsWith('.localhost') || classifyAddress(host) === 'loopback'
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'endereço inválido';
  }
}
