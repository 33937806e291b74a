import { Injectable, Logger } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import {
  GatewayError,
  GatewayTarget,
  MessagingGateway,
  OutgoingMessage,
  SendOptions,
} from '../../gateway/domain/messaging-gateway';
import {
  isBlankMessage,
  messagesForContact,
  sentTextOf,
  variantSeed,
} from '../domain/campaign-message';
import {
  blankMessageOutcome,
  blockedNumberOutcome,
  classify,
  internalOutcome,
  outsideWindowOutcome,
  SendOutcome,
  unexpectedErrorOutcome,
} from '../domain/send-outcome';
import type { ContactToSend, DispatchCampaign } from '../domain/dispatch-records';
import { CustomerServiceWindowRepository } from '../infrastructure/customer-service-window.repository';
import { CampaignGatewayTargets } from './campaign-gateway-targets';
import { ContactVariablesProvider } from './contact-variables.provider';
import { GatewayMediaPreparer } from './gateway-media.preparer';

/** A contact's messages, ready for the gateway, and the configuration that carries them. */
interface PreparedSend {
  target: GatewayTarget;
  messages: OutgoingMessage[];
  /** False for a free-form message on the Cloud API to a person silent for 24 hours. */
  windowOpen: boolean;
}

/**
 * Everything between SENDING and the outcome: renders the contact's messages, calls the
 * gateway and says what its answer proves. Writes nothing: the recorder stores the outcome.
 */
@Injectable()
export class CampaignMessageSender {
  private readonly logger = new Logger(CampaignMessageSender.name);

  constructor(
    private readonly gateway: MessagingGateway,
    private readonly targets: CampaignGatewayTargets,
    private readonly variables: ContactVariablesProvider,
    private readonly media: GatewayMediaPreparer,
    private readonly window: CustomerServiceWindowRepository,
  ) {}

  /**
   * An error of ours before the gateway call is `internal` (the contact goes back, never
   * FAILED); a gateway error says what it proves; anything else thrown during the call may
   * have followed a message that went out: `uncertain`.
   */
  async deliver(campaign: DispatchCampaign, contact: ContactToSend): Promise<SendOutcome> {
    if (contact.blocked) {
      return blockedNumberOutcome();
    }
    let prepared: PreparedSend;
    try {
      prepared = await this.prepare(campaign, contact);
    } catch (error) {
      return this.notPrepared(error, campaign, contact);
    }
    const [first, ...rest] = prepared.messages;
    if (isBlankMessage(first)) {
      return blankMessageOutcome();
    }
    if (!prepared.windowOpen) {
      return outsideWindowOutcome();
    }
    const options = sendOptionsFor(prepared.target, contact);
    try {
      const sent = await this.gateway.send(prepared.target, contact.phoneNumber, first, options);
      await this.sendFollowUps(prepared, contact, rest, campaign.id);
      return { kind: 'sent', messageId: sent.messageId, text: sentTextOf(prepared.messages) };
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        // Thrown after the request may have left: its outcome cannot be known.
        this.logger.error({ contactId: contact.id, err: error }, 'Unexpected error while sending');
        return unexpectedErrorOutcome();
      }
      return classify(error, contact.attempts, first);
    }
  }

  /**
   * The Cloud API's customer-service window: a free-form message goes only to a person who
   * wrote to the number in the last 24 hours; a template goes to anyone. Evolution has none.
   */
  private async windowAllows(
    { target, messages }: Omit<PreparedSend, 'windowOpen'>,
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): Promise<boolean> {
    if (target.provider !== 'CLOUD_API' || messages[0]?.kind === 'template') {
      return true;
    }
    return this.window.isOpen(campaign.gatewayConfigId, contact.phoneNumber);
  }

  private async prepare(campaign: DispatchCampaign, contact: ContactToSend): Promise<PreparedSend> {
    const values = campaign.databaseConfigId
      ? await this.variables.valuesFor(
          campaign.companyId,
          campaign.databaseConfigId,
          contact.phoneNumber,
        )
      : {};
    const rendered = messagesForContact(
      campaign,
      contact,
      values,
      variantSeed(campaign.id, contact.phoneNumber),
    );
    const messages = await Promise.all(rendered.map((message) => this.media.prepare(message)));
    const target = await this.targets.targetFor(campaign.companyId, campaign.gatewayConfigId);
    // Read before the call like the rest: a failure to read it is ours, not the contact's.
    const windowOpen = await this.windowAllows({ target, messages }, campaign, contact);
    return { target, messages, windowOpen };
  }

  private notPrepared(
    error: unknown,
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): SendOutcome {
    this.logger.error(
      { campaignId: campaign.id, contactId: contact.id, err: error },
      'Send not prepared; the contact goes back to PENDING',
    );
    return internalOutcome(error instanceof DomainError ? error.message : null);
  }

  /** The text after a voice note: the contact already got the main message, so a failure here is only logged. */
  private async sendFollowUps(
    { target }: PreparedSend,
    contact: ContactToSend,
    messages: OutgoingMessage[],
    campaignId: number,
  ): Promise<void> {
    for (const message of messages) {
      if (isBlankMessage(message)) {
        continue;
      }
      try {
        await this.gateway.send(
          target,
          contact.phoneNumber,
          message,
          sendOptionsFor(target, contact),
        );
      } catch (error) {
        this.logger.warn(
          {
            campaignId,
            contactId: contact.id,
            err: error instanceof Error ? error.message : String(error),
          },
          'Follow-up message failed',
        );
      }
    }
  }
}

/**
 * A Cloud API send carries the campaign contact's id as Meta's biz_opaque_callback_data, which
 * Meta echoes in the message's status webhooks: how a send whose answer was lost is reconciled.
 */
function sendOptionsFor(target: GatewayTarget, contact: ContactToSend): SendOptions | undefined {
  return target.provider === 'CLOUD_API' ? { callbackData: contact.id } : undefined;
}
