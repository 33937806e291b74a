import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import {
  GatewayConfigsService,
  GatewayConfigSummary,
} from '../../gateway/application/gateway-configs.service';
import {
  GatewayError,
  GatewayTarget,
  MessagingGateway,
} from '../../gateway/domain/messaging-gateway';
import type { Campaign } from '../domain/campaign.entity';
import {
  CampaignGatewayConfigRemovedError,
  GatewayCheckFailedError,
} from '../domain/campaign.errors';
import type { CampaignInput } from './campaign-input';

/**
 * What a campaign's creation and retry ask of the gateway before anything is written: the
 * configuration to send through (saved from inline credentials when need be) and a connected
 * instance. Every refusal is a 400 that says what the gateway answered.
 */
@Injectable()
export class CampaignGatewayCheck {
  constructor(
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly gateway: MessagingGateway,
  ) {}

  /**
   * The configuration to send through, its instance checked unless this is a draft. Inline
   * credentials are kept as a saved configuration (key encrypted at rest), one per URL and
   * instance, so every campaign response can name its gatewayConfig and the engine reads the
   * key from one place; the newest key given wins, but only once the gateway accepted it: a
   * typo must not break the campaigns already sending with the saved key.
   */
  async resolve(
    companyId: number,
    command: CampaignInput,
  ): Promise<{ config: GatewayConfigSummary; target: GatewayTarget }> {
    if (command.gatewayConfigId !== undefined) {
      const resolved = await this.gatewayConfigs.resolveTarget(companyId, command.gatewayConfigId);
      if (!command.isDraft) {
        await this.assertInstanceConnected(resolved.target);
      }
      return resolved;
    }
    const input = {
      name: (command.gatewayInstance as string).trim(),
      url: (command.gatewayUrl as string).trim(),
      apiKey: (command.gatewayApiKey as string).trim(),
      instance: (command.gatewayInstance as string).trim(),
    };
    const existing = (await this.gatewayConfigs.list(companyId)).find(
      (config) => config.url === input.url && config.instance === input.instance,
    );
    const current = existing
      ? await this.gatewayConfigs.resolveTarget(companyId, existing.id).catch(() => null)
      : null;
    if (!command.isDraft) {
      await this.assertInstanceConnected({
        url: input.url,
        apiKey: input.apiKey,
        instance: input.instance,
      });
    } else if (existing && apiKeyOf(current?.target) !== input.apiKey) {
      await this.assertKeyAccepted({
        url: input.url,
        apiKey: input.apiKey,
        instance: input.instance,
      });
    }
    if (current && apiKeyOf(current.target) === input.apiKey) {
      // The same key again (every campaign of an integration sends it) writes nothing: a
      // rewrite per campaign made concurrent creations queue on the configuration's row.
      return current;
    }
    const saved = existing
      ? await this.gatewayConfigs.update(companyId, existing.id, { apiKey: input.apiKey })
      : await this.gatewayConfigs.create(companyId, input);
    return this.gatewayConfigs.resolveTarget(companyId, saved.id);
  }

  /**
   * A pool's senders, in the order given, each checked as a single configuration is (owned:
   * 403 for another company's; connected unless this is a draft), all at once. An id that
   * names no configuration is a 400 naming its place in the list.
   */
  async resolvePool(
    companyId: number,
    configIds: readonly number[],
    isDraft: boolean,
  ): Promise<Array<{ config: GatewayConfigSummary; target: GatewayTarget }>> {
    const resolved = await Promise.all(
      configIds.map((id, index) =>
        this.gatewayConfigs.resolveTarget(companyId, id).catch((error: unknown) => {
          if (error instanceof ResourceNotFoundError) {
            throw new ValidationFailedError([
              [`gatewayConfigIds[${index}]`, 'configuração de gateway não encontrada'],
            ]);
          }
          throw error;
        }),
      ),
    );
    if (!isDraft) {
      await Promise.all(
        resolved.map(({ config, target }) => this.assertPoolSenderConnected(config, target)),
      );
    }
    return resolved;
  }

  /** A pool's sender checked as a single configuration is, its refusal naming the number. */
  private async assertPoolSenderConnected(
    config: GatewayConfigSummary,
    target: GatewayTarget,
  ): Promise<void> {
    try {
      await this.assertInstanceConnected(target);
    } catch (error) {
      if (error instanceof GatewayCheckFailedError) {
        throw new GatewayCheckFailedError(`${config.instance}: ${error.message}`.slice(0, 300));
      }
      throw error;
    }
  }

  /**
   * A retry goes through the campaign's configuration as it is now: it must still exist (a
   * finished campaign does not keep it from being deleted) and its instance must be connected,
   * as at creation, so that a retry does not fail again at once on a known cause.
   */
  async assertCanSendThrough(campaign: Campaign): Promise<void> {
    let target: GatewayTarget;
    try {
      ({ target } = await this.gatewayConfigs.resolveTarget(
        campaign.companyId,
        campaign.gatewayConfigId,
      ));
    } catch (error) {
      if (error instanceof ResourceNotFoundError) {
        throw new CampaignGatewayConfigRemovedError();
      }
      throw error;
    }
    await this.assertInstanceConnected(target);
  }

  /** A draft's new key for a saved configuration: the gateway must accept it, connected or not. */
  private async assertKeyAccepted(target: GatewayTarget): Promise<void> {
    try {
      await this.gateway.connectionState(target);
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        throw error;
      }
      throw new GatewayCheckFailedError(gatewayCheckMessage(error));
    }
  }

  /**
   * Creation checks the gateway: unknown instance, refused key or a disconnected instance is a
   * 400. For a Cloud API number the port's connection check is Meta's number lookup.
   */
  private async assertInstanceConnected(target: GatewayTarget): Promise<void> {
    try {
      const state = await this.gateway.connectionState(target);
      if (state !== 'open') {
        throw new GatewayCheckFailedError(
          `A instância do gateway não está conectada (estado: ${state})`,
        );
      }
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        throw error;
      }
      throw new GatewayCheckFailedError(gatewayCheckMessage(error));
    }
  }
}

/** Inline credentials are an Evolution API key; a Cloud API configuration never matches them. */
function apiKeyOf(target: GatewayTarget | undefined): string | undefined {
  return target && target.provider !== 'CLOUD_API' ? target.apiKey : undefined;
}

function gatewayCheckMessage(error: GatewayError): string {
  switch (error.kind) {
    case 'bad_credentials':
      return 'Credenciais do gateway inválidas: a chave de API foi recusada';
    case 'unknown_instance':
      return 'Credenciais do gateway inválidas: a instância não existe';
    case 'disconnected':
      return 'A instância do gateway não está conectada';
    case 'target_refused':
      return 'O endereço do gateway não é permitido';
    case 'account_blocked':
      return `A conta da API oficial não pode enviar: ${error.message}`.slice(0, 300);
    case 'throttled':
    case 'undeliverable':
    case 'reengagement_required':
    case 'marketing_limit':
    case 'refused_number':
    case 'rejected':
    case 'transient':
    case 'uncertain':
    case 'media_unreachable':
      return `Não foi possível verificar o gateway: ${error.message}`.slice(0, 300);
  }
}
