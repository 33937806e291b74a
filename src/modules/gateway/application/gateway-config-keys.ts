import { SecretBox, SecretBoxError } from '../../../common/crypto/secret-box';
import type { GatewayConfig } from '../domain/gateway-config.entity';
import {
  EvolutionOnlyError,
  GatewayConfigKeyUnreadableError,
  NotCloudApiConfigError,
} from '../domain/gateway-config.errors';
import type { CloudApiTarget, EvolutionTarget, GatewayTarget } from '../domain/messaging-gateway';

/** Binds each encrypted key to its company, so a value copied across tenants fails to open. */
export function keyContext(companyId: number): string {
  return `gateway-config:${companyId}`;
}

/** The Cloud API app secret's binding, apart from the access token's. */
export function appSecretContext(companyId: number): string {
  return `gateway-config-app-secret:${companyId}`;
}

/** The configuration's API key opened; GatewayConfigKeyUnreadableError when it no longer opens. */
export function openKey(secrets: SecretBox, config: GatewayConfig): string {
  try {
    return secrets.decrypt(config.apiKeyEncrypted, keyContext(config.companyId));
  } catch (error) {
    if (error instanceof SecretBoxError) {
      throw new GatewayConfigKeyUnreadableError();
    }
    throw error;
  }
}

/** Where a call through the configuration goes, with its key (or access token) opened. */
export function targetOf(secrets: SecretBox, config: GatewayConfig): GatewayTarget {
  return config.provider === 'CLOUD_API'
    ? cloudTargetOf(secrets, config)
    : evolutionTargetOf(secrets, config);
}

/** For what only Evolution API instances do: a clear 400 for a Cloud API configuration. */
export function evolutionTargetOf(
  secrets: SecretBox,
  config: GatewayConfig,
  what = 'Esta operação',
): EvolutionTarget {
  if (config.provider === 'CLOUD_API') {
    throw new EvolutionOnlyError(what);
  }
  return { url: config.url, apiKey: openKey(secrets, config), instance: config.instance };
}

/** For what only Cloud API numbers have: a clear 400 for an Evolution API configuration. */
export function cloudTargetOf(
  secrets: SecretBox,
  config: GatewayConfig,
  what = 'Esta operação',
): CloudApiTarget {
  if (config.provider !== 'CLOUD_API' || !config.businessAccountId || !config.apiVersion) {
    throw new NotCloudApiConfigError(what);
  }
  return {
    provider: 'CLOUD_API',
    url: config.url,
    apiVersion: config.apiVersion,
    phoneNumberId: config.instance,
    businessAccountId: config.businessAccountId,
    accessToken: openKey(secrets, config),
  };
}
