import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.service';
import {
  CloudApiTarget,
  GatewayChat,
  GatewayContact,
  GatewayError,
  GatewayGroup,
  InstanceConnectionState,
  InstanceWebhook,
  MessagingGateway,
  NotOfferedByProviderError,
  OutgoingMessage,
  SendOptions,
  SentMessage,
  StoredSentMessage,
} from '../domain/messaging-gateway';
import { GraphCloudApiAccount } from './cloud-api.account';
import { GraphApiClient } from './cloud-api.client';
import { buildCloudSendRequest, toCloudSentMessage } from './cloud-api.payloads';

function evolutionOnly(what: string): GatewayError {
  return new NotOfferedByProviderError(
    `${what} existe só no Evolution API; a API oficial do WhatsApp (Cloud API) não tem`,
  );
}

/**
 * Meta's WhatsApp Cloud API behind the port: sends by POST /{version}/{phone-number-id}/messages,
 * one attempt, no retry (the engine owns retries; a repeated send can double a message).
 */
@Injectable()
export class CloudApiGateway extends MessagingGateway {
  constructor(
    private readonly graph: GraphApiClient,
    private readonly account: GraphCloudApiAccount,
    private readonly config: AppConfig,
  ) {
    super();
  }

  /** A message Meta cannot carry (a poll, base64 media) is rejected before any call. */
  async send(
    target: CloudApiTarget,
    to: string,
    message: OutgoingMessage,
    options: SendOptions = {},
  ): Promise<SentMessage> {
    const { operation, body } = buildCloudSendRequest(to, message, options);
    return await this.graph.call(
      target,
      {
        operation,
        method: 'POST',
        path: `/${encodeURIComponent(target.phoneNumberId)}/messages`,
        json: body,
        timeoutMs: this.config.gatewaySendTimeoutMs,
      },
      toCloudSentMessage,
    );
  }

  /**
   * Meta keeps no store of sent messages to look into: a send whose answer was lost is
   * reconciled by its status webhooks (biz_opaque_callback_data), so nothing is shown here.
   */
  findSentMessages(): Promise<StoredSentMessage[]> {
    return Promise.resolve([]);
  }

  /** A number that Meta shows is ready to send: the number check is the connection check. */
  async connectionState(target: CloudApiTarget): Promise<InstanceConnectionState> {
    await this.account.lookUpNumber(target);
    return 'open';
  }

  findWebhook(): Promise<InstanceWebhook | null> {
    return Promise.reject(evolutionOnly('O webhook da instância'));
  }

  setWebhook(): Promise<void> {
    return Promise.reject(evolutionOnly('O webhook da instância'));
  }

  instanceToken(): Promise<string | null> {
    return Promise.reject(evolutionOnly('O token da instância'));
  }

  findContacts(): Promise<GatewayContact[]> {
    return Promise.reject(evolutionOnly('A lista de contatos do número'));
  }

  findChats(): Promise<GatewayChat[]> {
    return Promise.reject(evolutionOnly('A lista de conversas do número'));
  }

  fetchGroups(): Promise<GatewayGroup[]> {
    return Promise.reject(evolutionOnly('A lista de grupos do número'));
  }
}
