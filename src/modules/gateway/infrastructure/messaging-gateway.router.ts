import { Injectable } from '@nestjs/common';
import {
  GatewayChat,
  GatewayContact,
  GatewayGroup,
  GatewayTarget,
  InstanceConnectionState,
  InstanceWebhook,
  InstanceWebhookSettings,
  MessagingGateway,
  OutgoingMessage,
  SendOptions,
  SentMessage,
  StoredSentMessage,
} from '../domain/messaging-gateway';
import { CloudApiGateway } from './cloud-api.gateway';
import { EvolutionApiGateway } from './evolution-api.gateway';

/**
 * The one MessagingGateway every feature sends through: each call goes to the adapter of its
 * target's provider (docs/ARCHITECTURE.md, "Two providers behind one port"), so campaigns,
 * automations and notices never ask which gateway a configuration names.
 */
@Injectable()
export class MessagingGatewayRouter extends MessagingGateway {
  constructor(
    private readonly evolution: EvolutionApiGateway,
    private readonly cloud: CloudApiGateway,
  ) {
    super();
  }

  send(
    target: GatewayTarget,
    to: string,
    message: OutgoingMessage,
    options?: SendOptions,
  ): Promise<SentMessage> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.send(target, to, message, options)
      : this.evolution.send(target, to, message, options);
  }

  findSentMessages(
    target: GatewayTarget,
    remoteJid: string,
    window: { from: Date; to: Date },
  ): Promise<StoredSentMessage[]> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.findSentMessages()
      : this.evolution.findSentMessages(target, remoteJid, window);
  }

  findWebhook(target: GatewayTarget): Promise<InstanceWebhook | null> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.findWebhook()
      : this.evolution.findWebhook(target);
  }

  setWebhook(target: GatewayTarget, settings: InstanceWebhookSettings): Promise<void> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.setWebhook()
      : this.evolution.setWebhook(target, settings);
  }

  instanceToken(target: GatewayTarget): Promise<string | null> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.instanceToken()
      : this.evolution.instanceToken(target);
  }

  connectionState(target: GatewayTarget): Promise<InstanceConnectionState> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.connectionState(target)
      : this.evolution.connectionState(target);
  }

  findContacts(target: GatewayTarget): Promise<GatewayContact[]> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.findContacts()
      : this.evolution.findContacts(target);
  }

  findChats(target: GatewayTarget): Promise<GatewayChat[]> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.findChats()
      : this.evolution.findChats(target);
  }

  fetchGroups(target: GatewayTarget, withParticipants: boolean): Promise<GatewayGroup[]> {
    return target.provider === 'CLOUD_API'
      ? this.cloud.fetchGroups()
      : this.evolution.fetchGroups(target, withParticipants);
  }
}
