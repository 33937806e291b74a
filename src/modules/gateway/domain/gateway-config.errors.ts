import { DomainError, InvalidInputError } from '../../../common/errors/domain-error';
import type { ResourceKind } from '../../../common/tenancy/owned-resource';
import { NotOfferedByProviderError, type GatewayError } from './messaging-gateway';

export const GATEWAY_CONFIG: ResourceKind = {
  code: 'GATEWAY_CONFIG',
  notFoundMessage: 'Configuração de gateway não encontrada',
};

export class GatewayConfigInUseError extends InvalidInputError {
  constructor(reasons: readonly string[]) {
    super('GATEWAY_CONFIG.IN_USE', `Configuração de gateway em uso: ${reasons.join('; ')}`);
  }
}

/** The stored key no longer opens, e.g. after ENCRYPTION_KEY changed. */
export class GatewayConfigKeyUnreadableError extends InvalidInputError {
  constructor() {
    super(
      'GATEWAY_CONFIG.KEY_UNREADABLE',
      'Não foi possível ler a chave de API salva nesta configuração; informe a chave novamente',
    );
  }
}

/**
 * A gateway failure as the HTTP edge reports it: 400 when the saved configuration is wrong
 * (key, instance, target, account) or asks a provider for what it does not have (a Cloud API
 * number for what only Evolution API has), 503 when the gateway itself is failing or
 * unreachable (the request may work later; the error kinds offer no 502).
 */
export function gatewayFailure(error: GatewayError): DomainError {
  const code = `GATEWAY.${error.kind.toUpperCase()}`;
  if (error instanceof NotOfferedByProviderError) {
    return new InvalidInputError(code, error.message);
  }
  switch (error.kind) {
    case 'bad_credentials':
      return new InvalidInputError(
        code,
        'Credenciais do gateway inválidas: a chave de API foi recusada',
      );
    case 'unknown_instance':
    case 'target_refused':
    case 'refused_number':
    case 'account_blocked':
      return new InvalidInputError(code, error.message);
    case 'rejected':
    case 'throttled':
    case 'undeliverable':
    case 'reengagement_required':
    case 'marketing_limit':
    case 'disconnected':
    case 'transient':
    case 'uncertain':
    case 'media_unreachable':
      return new DomainError(code, 'unavailable', `Falha ao consultar o gateway: ${error.message}`);
  }
}

/** Templates and the other Cloud API features asked of an Evolution API configuration. */
export class NotCloudApiConfigError extends InvalidInputError {
  constructor(what: string) {
    super(
      'GATEWAY_CONFIG.NOT_CLOUD_API',
      `${what} existe só em configurações da API oficial do WhatsApp (provider CLOUD_API)`,
    );
  }
}

/** An operation of Evolution API instances asked of a Cloud API configuration. */
export class EvolutionOnlyError extends InvalidInputError {
  constructor(what: string) {
    super(
      'GATEWAY_CONFIG.EVOLUTION_ONLY',
      `${what} existe só em configurações do Evolution API; esta é da API oficial do WhatsApp (CLOUD_API)`,
    );
  }
}
