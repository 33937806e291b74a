import { Injectable, Logger } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import type { Company } from '../../auth/domain/company.entity';
import { BlockListService } from '../../blocked-contacts/application/block-list.service';
import {
  CampaignDeliveryEvents,
  InboundMessage,
  RecordedReply,
} from '../../campaigns/application/campaign-delivery-events';
import { candidateJids } from '../../campaigns/domain/whatsapp-jid';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { OutboxEvent, OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import { inboundOf, isOptOut } from '../domain/gateway-event';
import { eventData, eventTime, StoredGatewayEvent } from './ports/gateway-events.repository';

/** What the processor applies of the messages people write to the numbers (messages.upsert). */
@Injectable()
export class InboundMessages {
  private readonly logger = new Logger(InboundMessages.name);

  constructor(
    private readonly campaigns: CampaignDeliveryEvents,
    private readonly blockList: BlockListService,
    private readonly settings: CompanySettingsService,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
  ) {}

  /**
   * Messages people wrote to the numbers (docs/ARCHITECTURE.md, "Replies, warm contacts and the
   * reach-out lock"), set-based for the batch: each person is warm for the instance, the
   * campaign message they answered counts its reply once (`contact.replied`), and a reply that
   * is one of the company's opt-out words also opts them out. A sender the event names only by
   * an `@lid` is counted, not guessed.
   */
  async apply(
    tx: Transaction,
    events: StoredGatewayEvent[],
  ): Promise<{ replies: number; unmappedSenders: number }> {
    const companies = new Map<number, Company>();
    const companyOf = async (id: number): Promise<Company> => {
      const company = companies.get(id) ?? (await this.settings.get(id));
      companies.set(id, company);
      return company;
    };
    let unmappedSenders = 0;
    const messages: Array<
      InboundMessage & { event: StoredGatewayEvent; phone: string; text: string | null }
    > = [];
    for (const [ref, event] of events.entries()) {
      const inbound = inboundOf(eventData(event.payload));
      if (inbound?.phone === null) {
        unmappedSenders += 1;
      }
      if (!inbound?.phone) {
        continue;
      }
      messages.push({
        ref,
        event,
        phone: inbound.phone,
        text: inbound.text,
        companyId: event.companyId,
        gatewayConfigId: event.gatewayConfigId,
        phones: candidateJids(inbound.phone).map((jid) => jid.split('@')[0]),
        at: atOf(event),
        replyWindowHours: (await companyOf(event.companyId)).effectiveReachOut.replyWindowHours,
      });
    }
    const byRef = new Map(messages.map((message) => [message.ref, message]));
    const replies = await this.campaigns.recordInbound(tx, messages);
    const announced = [];
    for (const reply of replies) {
      const message = byRef.get(reply.ref) as (typeof messages)[number];
      announced.push(repliedEvent(await companyOf(message.companyId), reply, message.text));
    }
    await this.outbox.append(tx, announced);
    for (const message of messages) {
      const company = await companyOf(message.companyId);
      if (message.text !== null && isOptOut(message.text, company.effectiveOptOutWords)) {
        await this.optOut(tx, message.event, company, message.phone, message.phones);
      }
    }
    return { replies: replies.length, unmappedSenders };
  }

  /**
   * An opt-out word blocks the number (so every running campaign and automation skips it at
   * its next send), is counted on the campaign answered, announced to the company's webhooks
   * and, when the company set one, confirmed once.
   */
  private async optOut(
    tx: Transaction,
    event: StoredGatewayEvent,
    company: Company,
    phone: string,
    phones: string[],
  ): Promise<void> {
    if (!(await this.blockList.optOut(event.companyId, phone, tx))) {
      return;
    }
    const answered = await this.campaigns.countOptOut(
      tx,
      event.companyId,
      event.gatewayConfigId,
      phones,
    );
    this.logger.log(
      { companyId: event.companyId, campaignId: answered?.campaignId ?? null },
      'Opt-out by reply: number blocked',
    );
    await this.outbox.append(tx, [
      {
        companyId: event.companyId,
        campaignId: answered?.automationRunId === null ? answered.campaignId : null,
        eventType: 'contact.opted_out',
        payload: {
          event: 'contact.opted_out',
          companyId: event.companyId,
          phoneNumber: phone,
          campaignId: answered?.automationRunId === null ? answered.campaignId : null,
          timestamp: atOf(event).toISOString(),
        },
      },
    ]);
    if (company.optOutConfirmation) {
      await this.notices.enqueue(tx, {
        companyId: event.companyId,
        gatewayConfigId: event.gatewayConfigId,
        phoneNumber: phone,
        text: company.optOutConfirmation,
        reason: 'opt_out_confirmation',
        dedupKey: `opt-out:${event.companyId}:${phone}`,
      });
    }
  }
}

/** When the event happened: the gateway's time (kept at intake), else its arrival. */
export function atOf(event: StoredGatewayEvent): Date {
  return eventTime(event.payload, event.receivedAt);
}

/** `contact.replied`, with the text only when the company asked for it (it is the customer's). */
function repliedEvent(company: Company, replied: RecordedReply, text: string | null): OutboxEvent {
  const campaignId = replied.automationRunId === null ? replied.campaignId : null;
  const repliedAt = new Date(replied.repliedAt).toISOString();
  return {
    companyId: company.id,
    campaignId,
    eventType: 'contact.replied',
    payload: {
      event: 'contact.replied',
      companyId: company.id,
      campaignId,
      automationRunId: replied.automationRunId === null ? null : Number(replied.automationRunId),
      phoneNumber: replied.phoneNumber,
      repliedAt,
      ...(company.includeReplyText ? { text } : {}),
      timestamp: repliedAt,
    },
  };
}
