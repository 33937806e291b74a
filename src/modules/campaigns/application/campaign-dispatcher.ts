import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { EntityManager } from 'typeorm';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import {
  GatewayError,
  MessagingGateway,
  OutgoingMessage,
  SentMessage,
} from '../../gateway/domain/messaging-gateway';
import { NoticeQueue } from '../../notices/infrastructure/notice.queue';
import { OutboxWriter } from '../../outbox/infrastructure/outbox.writer';
import {
  CampaignEvent,
  completedEvent,
  failedEvent,
  progressEvents,
} from '../domain/campaign-events';
import { messagesForContact } from '../domain/campaign-message';
import { CampaignCounts, progressStepOf } from '../domain/campaign-stats';
import {
  CampaignCounters,
  ContactToSend,
  DispatchCampaign,
  DispatchRepository,
} from '../infrastructure/dispatch.repository';
import { CampaignGatewayTargets } from './campaign-gateway-targets';
import { CampaignLifecycle } from './campaign-lifecycle';
import { ContactVariablesProvider } from './contact-variables.provider';

/** Attempts per contact for transient gateway errors (SPEC-EXTENSIONS.md 4). */
export const MAX_SEND_ATTEMPTS = 3;
/** Waits before the 2nd and 3rd attempt: all three fall within 60 seconds. */
export const RETRY_DELAYS_MS = [3_000, 10_000];
/** How long a disconnected instance is retried before the campaign fails. */
export const DISCONNECTED_FAIL_AFTER_MS = 10 * 60 * 1000;
export const DISCONNECTED_RECHECK_MS = 5_000;
/**
 * Messages one lease sends back to back when they are due at once (zero intervals): fewer
 * claims and releases, while other campaigns still get their turn within a few seconds.
 */
export const MESSAGES_PER_LEASE = 50;

type SendOutcome =
  | { kind: 'sent'; sent: SentMessage }
  | { kind: 'failed'; reason: string }
  | { kind: 'retry'; reason: string }
  | { kind: 'disconnected'; reason: string }
  | { kind: 'campaign_failed'; reason: string };

/**
 * Sends one message of one leased campaign: re-reads the campaign under its row lock, marks
 * the next contact SENDING and commits before calling the gateway (at most once), then
 * records the outcome, the progress events and the next send time, and releases the lease.
 */
@Injectable()
export class CampaignDispatcher {
  private readonly logger = new Logger(CampaignDispatcher.name);
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private stopping = false;

  constructor(
    private readonly repository: DispatchRepository,
    private readonly gateway: MessagingGateway,
    private readonly targets: CampaignGatewayTargets,
    private readonly variables: ContactVariablesProvider,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly lifecycle: CampaignLifecycle,
  ) {}

  /** After shutdown began, a lease is given back after the message in flight. */
  stop(): void {
    this.stopping = true;
  }

  /**
   * Sends the leased campaign's next message, and the ones after it while they are due at
   * once (zero intervals), up to MESSAGES_PER_LEASE; then gives the lease back.
   * `takenOver`: the lease was taken from a holder whose lease ran out (a dead worker).
   */
  async sendNext(campaignId: number, takenOver = true): Promise<void> {
    for (let count = 1; ; count += 1) {
      const claimed =
        takenOver && count === 1
          ? await this.repository.transaction((manager) =>
              this.beginSend(manager, campaignId, true),
            )
          : await this.beginLeasedSend(campaignId);
      if (!claimed) {
        return;
      }
      const outcome = await this.deliver(claimed.campaign, claimed.contact);
      if (outcome.kind !== 'sent') {
        await this.repository.transaction((manager) =>
          this.finishSend(manager, claimed.campaign, claimed.contact, outcome),
        );
        return;
      }
      const mayContinue = count < MESSAGES_PER_LEASE && !this.stopping;
      if (!(await this.finishDelivered(claimed.campaign, claimed.contact, outcome, mayContinue))) {
        return;
      }
    }
  }

  /**
   * The common case in one committed statement; the rest (campaign no longer ACTIVE, nothing
   * ready) goes through beginSend's transaction, which handles it.
   */
  private async beginLeasedSend(
    campaignId: number,
  ): Promise<{ campaign: DispatchCampaign; contact: ContactToSend } | null> {
    const { campaign, contact } = await this.repository.beginLeasedSend(
      campaignId,
      this.workerId,
      this.config.dispatchLeaseSeconds,
    );
    if (!campaign || campaign.lockedBy !== this.workerId) {
      return null;
    }
    if (contact) {
      return { campaign, contact };
    }
    return this.repository.transaction((manager) => this.beginSend(manager, campaignId, false));
  }

  private async beginSend(
    manager: EntityManager,
    campaignId: number,
    takenOver: boolean,
  ): Promise<{ campaign: DispatchCampaign; contact: ContactToSend } | null> {
    const campaign = await this.repository.lockCampaign(manager, campaignId);
    if (!campaign || campaign.lockedBy !== this.workerId) {
      return null;
    }
    if (campaign.status !== 'ACTIVE') {
      await this.repository.release(manager, campaignId, null);
      return null;
    }
    const interrupted = takenOver
      ? await this.repository.failInterruptedSends(manager, campaignId)
      : 0;
    if (interrupted > 0) {
      this.logger.warn(
        { campaignId, interrupted },
        'Contacts left SENDING by a dead worker marked FAILED',
      );
      campaign.failedContacts += interrupted;
    }
    const contact = await this.repository.takeNextContact(manager, campaignId);
    if (contact) {
      return { campaign, contact };
    }
    await this.settleWithoutContact(manager, campaign);
    return null;
  }

  /** No contact is ready: wait for the next retry, or complete the campaign. */
  private async settleWithoutContact(
    manager: EntityManager,
    campaign: DispatchCampaign,
  ): Promise<void> {
    const retryAt = await this.repository.nextRetryAt(manager, campaign.id);
    if (retryAt) {
      await this.repository.release(manager, campaign.id, retryAt);
      return;
    }
    if (await this.repository.hasUnfinishedContacts(manager, campaign.id)) {
      await this.repository.release(
        manager,
        campaign.id,
        new Date(this.clock.now().getTime() + 1000),
      );
      return;
    }
    const counters = await this.repository.complete(manager, campaign.id);
    if (counters) {
      await this.afterCompletion(manager, campaign, counters);
    }
  }

  private async deliver(campaign: DispatchCampaign, contact: ContactToSend): Promise<SendOutcome> {
    try {
      const messages = await this.render(campaign, contact);
      const target = await this.targets.targetFor(campaign.companyId, campaign.gatewayConfigId);
      const [first, ...rest] = messages;
      const sent = await this.gateway.send(target, contact.phoneNumber, first);
      await this.sendFollowUps(target, contact, rest, campaign.id);
      return { kind: 'sent', sent };
    } catch (error) {
      return this.classify(error, contact);
    }
  }

  private async render(
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): Promise<OutgoingMessage[]> {
    const values = campaign.databaseConfigId
      ? await this.variables.valuesFor(
          campaign.companyId,
          campaign.databaseConfigId,
          contact.phoneNumber,
        )
      : {};
    return messagesForContact(campaign, contact, values);
  }

  /** The text after a voice note: the contact already got the main message, so a failure here is only logged. */
  private async sendFollowUps(
    target: Awaited<ReturnType<CampaignGatewayTargets['targetFor']>>,
    contact: ContactToSend,
    messages: OutgoingMessage[],
    campaignId: number,
  ): Promise<void> {
    for (const message of messages) {
      try {
        await this.gateway.send(target, contact.phoneNumber, message);
      } catch (error) {
        this.logger.warn(
          { campaignId, contactId: contact.id, err: describe(error) },
          'Follow-up message failed',
        );
      }
    }
  }

  private classify(error: unknown, contact: ContactToSend): SendOutcome {
    if (!(error instanceof GatewayError)) {
      this.logger.error({ contactId: contact.id, err: error }, 'Unexpected error while sending');
      return { kind: 'failed', reason: 'erro interno ao enviar' };
    }
    switch (error.kind) {
      case 'refused_number':
        return { kind: 'failed', reason: 'número não está no WhatsApp' };
      case 'rejected':
        return { kind: 'failed', reason: `recusado pelo gateway: ${error.message}`.slice(0, 500) };
      case 'bad_credentials':
        return {
          kind: 'campaign_failed',
          reason: 'O gateway recusou a chave de API (credenciais inválidas)',
        };
      case 'unknown_instance':
        return { kind: 'campaign_failed', reason: 'A instância do gateway não existe' };
      case 'target_refused':
        return { kind: 'campaign_failed', reason: 'O endereço do gateway não é permitido' };
      case 'disconnected':
        return { kind: 'disconnected', reason: 'instância do gateway desconectada' };
      case 'transient':
        return contact.attempts >= MAX_SEND_ATTEMPTS
          ? {
              kind: 'failed',
              reason: `falha temporária do gateway após ${MAX_SEND_ATTEMPTS} tentativas`,
            }
          : { kind: 'retry', reason: error.message };
    }
  }

  /**
   * Records a delivered message — in one statement unless a lifecycle listener follows the
   * campaign's contacts — then writes the progress events when a step was crossed, and gives
   * the lease back unless the next message is due at once. Answers whether to send it.
   */
  private async finishDelivered(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: { kind: 'sent'; sent: SentMessage },
    mayContinue: boolean,
  ): Promise<boolean> {
    const now = this.clock.now();
    const nextSendAt = this.nextPause(campaign)(now);
    const delivered = { id: contact.id, messageId: outcome.sent.messageId };
    const counters = this.lifecycle.followsContactsOf(campaign)
      ? await this.repository.transaction(async (manager) => {
          const counted = await this.repository.recordSent(
            campaign.id,
            delivered,
            nextSendAt,
            manager,
          );
          await this.lifecycle.contactSent(manager, campaign, contact);
          return counted;
        })
      : await this.repository.recordSent(campaign.id, delivered, nextSendAt);
    const ended = counters.sentContacts + counters.failedContacts >= counters.totalContacts;
    const goOn = mayContinue && !ended && nextSendAt.getTime() <= now.getTime();
    if (ended || progressStepOf(counters) > counters.progressStep) {
      await this.repository.transaction(async (manager) => {
        await this.afterCounting(manager, campaign, counters);
        if (!goOn) {
          await this.repository.releaseLease(campaign.id, this.workerId, manager);
        }
      });
    } else if (!goOn) {
      await this.repository.releaseLease(campaign.id, this.workerId);
    }
    return goOn;
  }

  private async finishSend(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: Exclude<SendOutcome, { kind: 'sent' }>,
  ): Promise<void> {
    const now = this.clock.now();
    const pause = this.nextPause(campaign);
    switch (outcome.kind) {
      case 'failed': {
        await this.repository.markFailed(manager, contact.id, outcome.reason);
        const counters = await this.repository.recordOutcome(manager, campaign.id, {
          sent: 0,
          failed: 1,
          nextSendAt: pause(now),
          connected: true,
        });
        return this.afterCounting(manager, campaign, counters);
      }
      case 'retry': {
        const delay = RETRY_DELAYS_MS[Math.min(contact.attempts - 1, RETRY_DELAYS_MS.length - 1)];
        await this.repository.markForRetry(
          manager,
          contact.id,
          new Date(now.getTime() + delay),
          true,
        );
        await this.repository.recordOutcome(manager, campaign.id, {
          sent: 0,
          failed: 0,
          nextSendAt: pause(now),
          connected: true,
        });
        return;
      }
      case 'disconnected':
        return this.onDisconnected(manager, campaign, contact, now);
      case 'campaign_failed':
        await this.repository.markForRetry(manager, contact.id, now, false);
        return this.failCampaign(manager, campaign, outcome.reason);
    }
  }

  private async onDisconnected(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    now: Date,
  ): Promise<void> {
    await this.repository.markForRetry(manager, contact.id, now, false);
    const since = campaign.disconnectedSince ?? now;
    if (now.getTime() - since.getTime() >= DISCONNECTED_FAIL_AFTER_MS) {
      return this.failCampaign(
        manager,
        campaign,
        'A instância do gateway ficou desconectada por mais de 10 minutos',
      );
    }
    await this.repository.recordOutcome(manager, campaign.id, {
      sent: 0,
      failed: 0,
      nextSendAt: new Date(now.getTime() + DISCONNECTED_RECHECK_MS),
      connected: false,
    });
    if (!campaign.disconnectedSince && campaign.notificationPhone) {
      await this.notices.enqueue(manager, {
        companyId: campaign.companyId,
        gatewayConfigId: campaign.gatewayConfigId,
        phoneNumber: campaign.notificationPhone,
        text: `⚠️ A instância do WhatsApp da campanha "${campaign.name}" desconectou. O envio continua quando ela reconectar.`,
        reason: 'instance_disconnected',
        dedupKey: `campaign:${campaign.id}:disconnected:${since.toISOString()}`,
      });
    }
  }

  private async afterCounting(
    manager: EntityManager,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
  ): Promise<void> {
    const now = this.clock.now();
    const step = progressStepOf(counters);
    const events: CampaignEvent[] = progressEvents(
      campaign,
      counters,
      counters.progressStep,
      step,
      now,
    );
    if (step > counters.progressStep) {
      await this.repository.setProgressStep(manager, campaign.id, step);
    }
    await this.appendEvents(manager, campaign, events);
    if (
      counters.sentContacts + counters.failedContacts >= counters.totalContacts &&
      counters.status === 'ACTIVE'
    ) {
      const completed = await this.repository.complete(manager, campaign.id);
      if (completed) {
        await this.afterCompletion(manager, campaign, completed);
      }
    }
  }

  private async afterCompletion(
    manager: EntityManager,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
  ): Promise<void> {
    const now = this.clock.now();
    const step = progressStepOf(counters);
    await this.appendEvents(manager, campaign, [
      ...progressEvents(campaign, counters, counters.progressStep, step, now),
      completedEvent(campaign, counters, now),
    ]);
    await this.repository.setProgressStep(manager, campaign.id, step);
    await this.notify(manager, campaign, 'completed', completionNotice(campaign, counters));
    await this.lifecycle.campaignEnded(manager, campaign, counters, null);
  }

  private async failCampaign(
    manager: EntityManager,
    campaign: DispatchCampaign,
    reason: string,
  ): Promise<void> {
    const counters = await this.repository.fail(manager, campaign.id, reason);
    if (!counters) {
      await this.repository.release(manager, campaign.id, null);
      return;
    }
    this.logger.warn({ campaignId: campaign.id, reason }, 'Campaign failed');
    await this.appendEvents(manager, campaign, [
      failedEvent(campaign, counters, this.clock.now(), reason),
    ]);
    await this.notify(manager, campaign, 'failed', `❌ ${subjectOf(campaign)} falhou: ${reason}.`);
    await this.lifecycle.campaignEnded(manager, campaign, counters, reason);
  }

  /** Webhook events are about the company's campaigns; automation runs have their own records. */
  private async appendEvents(
    manager: EntityManager,
    campaign: DispatchCampaign,
    events: CampaignEvent[],
  ): Promise<void> {
    if (campaign.automationRunId === null) {
      await this.outbox.append(manager, events);
    }
  }

  private async notify(
    manager: EntityManager,
    campaign: DispatchCampaign,
    what: string,
    text: string,
  ): Promise<void> {
    if (!campaign.notificationPhone) {
      return;
    }
    await this.notices.enqueue(manager, {
      companyId: campaign.companyId,
      gatewayConfigId: campaign.gatewayConfigId,
      phoneNumber: campaign.notificationPhone,
      text,
      reason: `campaign_${what}`,
      dedupKey: `campaign:${campaign.id}:${what}`,
    });
  }

  /** A uniform draw in [min, max] seconds, taken before each message after the first. */
  private nextPause(campaign: DispatchCampaign): (now: Date) => Date {
    return (now) => {
      const seconds =
        campaign.minInterval + Math.random() * (campaign.maxInterval - campaign.minInterval);
      return new Date(now.getTime() + Math.round(seconds * 1000));
    };
  }
}

function subjectOf(campaign: DispatchCampaign): string {
  return campaign.automationRunId === null
    ? `A campanha "${campaign.name}"`
    : `A execução da ${campaign.name.replace(/^Automação: /, 'automação "')}"`;
}

function completionNotice(campaign: DispatchCampaign, counts: CampaignCounts): string {
  return `✅ ${subjectOf(campaign)} foi concluída: ${counts.sentContacts} enviadas, ${counts.failedContacts} com falha, de ${counts.totalContacts} contatos.`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
