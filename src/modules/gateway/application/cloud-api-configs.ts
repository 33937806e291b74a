import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../../common/crypto/secret-box';
import { DomainError, ValidationFailedError } from '../../../common/errors/domain-error';
import { OutboundTargetGuard } from '../../../common/outbound/outbound-target.guard';
import { Clock } from '../../../common/time/clock';
import {
  CloudApiFields,
  GatewayConfig,
  GatewayProvider,
  InstanceLimits,
} from '../domain/gateway-config.entity';
import { gatewayFailure } from '../domain/gateway-config.errors';
import { GatewayError } from '../domain/messaging-gateway';
import { GatewayConfigsRepository } from '../infrastructure/gateway-configs.repository';
import { GatewayTemplatesRepository } from '../infrastructure/gateway-templates.repository';
import { appSecretContext, cloudTargetOf, keyContext } from './gateway-config-keys';
import { assertCallableUrl } from './gateway-url-check';
import { CloudApiAccount } from './ports/cloud-api-account';

export const DEFAULT_GRAPH_API_URL = 'https://graph.facebook.com';
/**
 * The newest Graph API version Meta's reference pages show (their "GET /v27.0/…" examples,
 * developers.facebook.com/docs/graph-api/reference/, November 2026).
 */
export const DEFAULT_GRAPH_API_VERSION = 'v27.0';

export interface CloudApiConfigInput {
  name: string;
  url?: string;
  phoneNumberId: string;
  businessAccountId: string;
  accessToken: string;
  appSecret: string;
  apiVersion?: string;
  throughputPerSecond?: number | null;
}

/** Fields that belong to one provider only; sent for the other, they are refused by name. */
const ONLY_FOR: Record<GatewayProvider, readonly string[]> = {
  EVOLUTION: ['apiKey', 'instance', 'trackDelivery', 'replaceGatewayWebhook'],
  CLOUD_API: [
    'phoneNumberId',
    'businessAccountId',
    'accessToken',
    'appSecret',
    'apiVersion',
    'throughputPerSecond',
  ],
};

const NOT_FOR: Record<GatewayProvider, string> = {
  EVOLUTION: 'só se aplica a configurações CLOUD_API',
  CLOUD_API:
    'só se aplica a configurações EVOLUTION (a API oficial sempre envia os eventos pelos webhooks da Meta: cadastre webhookUrl e webhookVerifyToken no painel da Meta)',
};

/** 400 naming every field sent that the provider does not have. */
export function assertFieldsFit(provider: GatewayProvider, input: object): void {
  const other: GatewayProvider = provider === 'CLOUD_API' ? 'EVOLUTION' : 'CLOUD_API';
  const misfits = ONLY_FOR[other].filter(
    (field) => (input as Record<string, unknown>)[field] !== undefined,
  );
  if (misfits.length > 0) {
    throw new ValidationFailedError(misfits.map((field) => [field, NOT_FOR[provider]]));
  }
}

/** What a failed number check means to the person who filled in the configuration. */
function numberCheckFailure(error: GatewayError): DomainError {
  switch (error.kind) {
    case 'target_refused':
      return new ValidationFailedError([['url', error.message]]);
    case 'bad_credentials':
    case 'account_blocked':
      return new ValidationFailedError([
        ['accessToken', `foi recusado pela API do WhatsApp: ${error.message}`],
      ]);
    case 'unknown_instance':
    case 'rejected':
      return new ValidationFailedError([
        ['phoneNumberId', `não foi encontrado na API do WhatsApp com este token: ${error.message}`],
      ]);
    case 'disconnected':
    case 'marketing_limit':
    case 'media_unreachable':
    case 'reengagement_required':
    case 'refused_number':
    case 'throttled':
    case 'transient':
    case 'uncertain':
    case 'undeliverable':
      return gatewayFailure(error);
  }
}

/** Creation and changes of Cloud API configurations: sealed secrets and Meta's number check. */
@Injectable()
export class CloudApiConfigs {
  constructor(
    private readonly configs: GatewayConfigsRepository,
    private readonly templates: GatewayTemplatesRepository,
    private readonly account: CloudApiAccount,
    private readonly secrets: SecretBox,
    private readonly targets: OutboundTargetGuard,
    private readonly clock: Clock,
  ) {}

  async create(
    companyId: number,
    input: CloudApiConfigInput,
    limits: Partial<InstanceLimits>,
  ): Promise<GatewayConfig> {
    const url = (input.url ?? DEFAULT_GRAPH_API_URL).trim();
    await assertCallableUrl(this.targets, url);
    const now = this.clock.now();
    const fields: CloudApiFields = {
      ...this.fieldsOf(companyId, input),
      name: input.name.trim(),
      url,
      phoneNumberId: input.phoneNumberId.trim(),
      businessAccountId: input.businessAccountId.trim(),
      apiVersion: input.apiVersion ?? DEFAULT_GRAPH_API_VERSION,
      throughputPerSecond: input.throughputPerSecond ?? null,
    } as CloudApiFields;
    const verifyToken = randomBytes(24).toString('hex');
    const config = GatewayConfig.createCloudApi(companyId, fields, verifyToken, now);
    config.limitSending(limits, now);
    await this.checkNumber(config);
    return this.configs.save(config);
  }

  /** A new token, number, version or URL is checked with Meta before it is saved. */
  async update(
    config: GatewayConfig,
    changes: Partial<CloudApiConfigInput>,
    limits: Partial<InstanceLimits>,
  ): Promise<GatewayConfig> {
    if (changes.url !== undefined) {
      await assertCallableUrl(this.targets, changes.url);
    }
    const now = this.clock.now();
    const before = {
      url: config.url,
      phoneNumberId: config.instance,
      apiVersion: config.apiVersion,
      key: config.apiKeyEncrypted,
      businessAccountId: config.businessAccountId,
    };
    config.changeCloudApi(
      {
        ...this.fieldsOf(config.companyId, changes),
        name: changes.name?.trim(),
        url: changes.url?.trim(),
        phoneNumberId: changes.phoneNumberId?.trim(),
        businessAccountId: changes.businessAccountId?.trim(),
        apiVersion: changes.apiVersion,
        throughputPerSecond: changes.throughputPerSecond,
      },
      now,
    );
    if (Object.values(limits).some((value) => value !== undefined)) {
      config.limitSending(limits, now);
    }
    const moved =
      before.url !== config.url ||
      before.phoneNumberId !== config.instance ||
      before.apiVersion !== config.apiVersion ||
      before.key !== config.apiKeyEncrypted;
    if (moved || before.businessAccountId !== config.businessAccountId) {
      await this.checkNumber(config);
    }
    const saved = await this.configs.save(config);
    if (before.businessAccountId !== config.businessAccountId) {
      // Another account's templates: the next listing reads them from Meta.
      await this.templates.replace(config.companyId, config.id, [], now);
    }
    return saved;
  }

  /** GET /{phone-number-id}: the token opens the number, and Meta says what it is. */
  private async checkNumber(config: GatewayConfig): Promise<void> {
    try {
      const facts = await this.account.lookUpNumber(cloudTargetOf(this.secrets, config));
      config.numberChecked(facts, this.clock.now());
    } catch (error) {
      throw error instanceof GatewayError ? numberCheckFailure(error) : error;
    }
  }

  private fieldsOf(
    companyId: number,
    input: Partial<CloudApiConfigInput>,
  ): Partial<Pick<CloudApiFields, 'accessTokenEncrypted' | 'appSecretEncrypted'>> {
    return {
      accessTokenEncrypted:
        input.accessToken === undefined
          ? undefined
          : this.secrets.encrypt(input.accessToken.trim(), keyContext(companyId)),
      appSecretEncrypted:
        input.appSecret === undefined
          ? undefined
          : this.secrets.encrypt(input.appSecret.trim(), appSecretContext(companyId)),
    };
  }
}
