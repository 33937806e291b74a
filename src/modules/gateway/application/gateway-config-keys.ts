import { SecretBox, SecretBoxError } from '../../../common/crypto/secret-box';
import type { GatewayConfig } from '../domain/gateway-config.entity';
import { GatewayConfigKeyUnreadableError } from '../domain/gateway-config.errors';
import type { EvolutionTarget } from '../domain/messaging-gateway';

/** Binds each encrypted key to its company, so a value copied across tenants fails to open. */
export function keyContext(companyId: number): string {
  return `gateway-config:${companyId}`;
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

/** Where a call to the configuration's instance goes, with its key opened. */
export function targetOf(secrets: SecretBox, config: GatewayConfig): EvolutionTarget {
  return { url: config.url, apiKey: openKey(secrets, config), instance: config.instance };
}
