import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError } from '../../../common/errors/domain-error';
import type { MessageOutcome, MessageReason } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import { Clock } from '../../../common/time/clock';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { AppConfig } from '../../../config/app-config.service';
import {
  GatewayError,
  GatewayTarget,
  InstanceCondition,
  MessagingGateway,
  OutgoingMessage,
  SentMessage,
} from '../../gateway/domain/messaging-gateway';
import { InstancePacing } from '../../gateway/application/ports/instance-pacing';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { nextWindowOpening } from '../../../common/time/sending-window';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import {
  CampaignEvent,
  completedEvent,
  failedEvent,
  pausedEvent,
  progressEvents,
} from '../domain/campaign-events';
import {
  isBlankMessage,
  messagesForContact,
  sentTextOf,
  variantSeed,
} from '../domain/campaign-message';
import { CampaignCounts, progressStepOf } from '../domain/campaign-stats';
import { fetchedMediaUrlOf } from '../domain/gateway-media-rules';
import { banSignalOf, SendSignal } from '../domain/ban-signals';
import { autoPauseOf } from '../../../common/messaging/auto-pause';
import type { SendFailureKind } from '../domain/contact-failure-kind';
import {
  CampaignCounters,
  ClaimedCampaign,
  ContactToSend,
  DispatchCampaign,
  DispatchRepository,
  Pauses,
  Requeue,
} from './ports/dispatch.repository';
import { CampaignGatewayTargets } from './campaign-gateway-targets';
import { CampaignLifecycle } from './campaign-lifecycle';
import { ContactVariablesProvider } from './contact-variables.provider';
import { GatewayMediaPreparer } from './gateway-media.preparer';

/** Attempts per contact for sends that proved nothing went out (docs/ARCHITECTURE.md). */
export const MAX_SEND_ATTEMPTS = 3;
/** Waits before the 2nd and 3rd attempt: all three fall within 60 seconds. */
export const RETRY_DELAYS_MS = [3_000, 10_000];
/** How long a disconnected instance is waited for before the campaign fails. */
export const DISCONNECTED_FAIL_AFTER_MS = 10 * 60 * 1000;
export const DISCONNECTED_RECHECK_MS = 5_000;
/** Why a campaign failed after DISCONNECTED_FAIL_AFTER_MS: its instance, never its contacts. */
const DISCONNECTED_FAIL_REASON = {
  disconnected:
    'A instância do gateway ficou desconectada por mais de 10 minutos; os contatos não enviados continuam pendentes',
  notPaired:
    'A instância do gateway ficou mais de 10 minutos sem ser pareada (leia o QR code); os contatos não enviados continuam pendentes',
};
/** Our own errors (before any gateway call) in a row that pause the campaign for a person. */
export const INTERNAL_ERRORS_BEFORE_PAUSE = 3;
export const INTERNAL_ERROR_RETRY_MS = 5_000;
/**
 * Messages one lease sends back to back when they are due at once (zero intervals): fewer
 * claims and releases, while other campaigns still get their turn within a few seconds.
 */
export const MESSAGES_PER_LEASE = 50;

export const BLANK_MESSAGE_REASON = 'mensagem em branco para este contato (variáveis sem valor)';
export const BLOCKED_NUMBER_REASON = 'número bloqueado depois da criação da campanha';
export const COMPANY_INACTIVE_REASON = 'a empresa foi desativada';

type SendOutcome =
  | { kind: 'sent'; sent: SentMessage; text: string | null }
  /**
   * Not to be sent; `paced`: a gateway call was made, so the campaign's pause applies.
   * `cause`: the reason's class, as the metrics count it and the contact records it.
   */
  | { kind: 'failed'; reason: string; paced: boolean; cause: SendFailureKind }
  | { kind: 'retry'; reason: string }
  | { kind: 'uncertain'; reason: string; cause: MessageReason }
  /** `condition`: what the answer proved about the instance (null: only that it cannot send). */
  | { kind: 'disconnected'; reason: string; condition: InstanceCondition | null }
  /** The gateway cannot fetch the media: every contact would fail alike, so the campaign pauses. */
  | { kind: 'media_unreachable'; reason: string }
  | { kind: 'internal'; reason: string }
  | { kind: 'campaign_failed'; reason: string };

type UnsentOutcome = Exclude<SendOutcome, { kind: 'sent' }>;

/** Contacts counted by a transaction, for the metrics once it committed. */
type MessageTally = Array<[MessageOutcome, MessageReason, number]>;

/**
 * Sends one message of one leased campaign: re-reads the campaign under its row lock, marks
 * the next contact SENDING and commits before calling the gateway (at most once), then
 * records what the gateway's answer proves (docs/ARCHITECTURE.md, "Gateway outcomes"), the
 * progress events and the next send time, and releases the lease.
 */
@Injectable()
export class CampaignDispatcher {
  private readonly logger = new Logger(CampaignDispatcher.name);
  private stopping = false;
  /** What each open transaction of this dispatcher counted, by its manager. */
  private readonly tallies = new WeakMap<EntityManager, MessageTally>();

  constructor(
    private readonly repository: DispatchRepository,
    private readonly gateway: MessagingGateway,
    private readonly targets: CampaignGatewayTargets,
    private readonly variables: ContactVariablesProvider,
    private readonly media: GatewayMediaPreparer,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly lifecycle: CampaignLifecycle,
    private readonly liveness: WorkerLiveness,
    private readonly metrics: Metrics,
    private readonly pacing: InstancePacing,
    private readonly gatewayConfigs: GatewayConfigsService,
  ) {}

  get workerId(): string {
    return this.liveness.workerId;
  }

  /** After shutdown began, a lease is given back after the message in flight. */
  stop(): void {
    this.stopping = true;
  }

  /**
   * One turn of the leased campaign on its gateway instance: when its window is open and the
   * instance may send (nobody else holds it, its pause ran, its figure of the day is not
   * reached), it sends its next message, and the ones after it while they are due at once
   * (zero intervals), up to MESSAGES_PER_LEASE and the instance's quota of the day; then the
   * instance waits the pause drawn for the last message. Otherwise the campaign waits for the
   * window, the instance's next day or its next slot.
   */
  async sendNext(claim: ClaimedCampaign): Promise<void> {
    if (claim.takenOver) {
      // Before anything may defer it: what a dead holder left SENDING is reconciled, never lost.
      await this.transaction((manager) => this.takeOver(manager, claim.id));
    }
    const opensAt = claim.sendingWindow
      ? nextWindowOpening(claim.sendingWindow, this.clock.now())
      : null;
    if (opensAt) {
      return this.repository.defer(claim.id, this.workerId, opensAt, 'OUTSIDE_WINDOW');
    }
    const slot = await this.pacing.hold(
      claim.gatewayConfigId,
      this.workerId,
      this.config.dispatchLeaseSeconds,
      claim.minInterval,
    );
    if (!slot.held) {
      const reason = slot.reason === 'DAILY_LIMIT' ? 'DAILY_LIMIT' : null;
      return this.repository.defer(claim.id, this.workerId, slot.retryAt, reason);
    }
    const turn: InstanceTurn = { sent: 0 };
    try {
      await this.sendTurn(claim.id, !claim.companyActive, slot.quota, turn);
    } finally {
      await this.pacing.release(claim.gatewayConfigId, this.workerId, turn);
    }
  }

  private async sendTurn(
    campaignId: number,
    begin: boolean,
    quota: number | null,
    turn: InstanceTurn,
  ): Promise<void> {
    const limit = Math.min(MESSAGES_PER_LEASE, quota ?? MESSAGES_PER_LEASE);
    for (let count = 1; ; count += 1) {
      if (count > 1 && this.stopping) {
        // Shutdown began after the last message: hand the campaign to another worker now.
        await this.repository.releaseLease(campaignId, this.workerId);
        return;
      }
      const claimed =
        begin && count === 1
          ? await this.transaction((manager) => this.beginSend(manager, campaignId, false))
          : await this.beginLeasedSend(campaignId);
      if (!claimed) {
        return;
      }
      this.metrics.observeDispatchLag(claimed.campaign.sendLagSeconds ?? 0);
      const pauses = drawPauses(claimed.campaign);
      const triedAt = this.clock.now();
      const outcome = await this.deliver(claimed.campaign, claimed.contact);
      if (outcome.kind !== 'sent') {
        turn.sent += outcome.kind === 'uncertain' ? 1 : 0;
        await this.transaction((manager) =>
          this.finishUnsent(manager, claimed.campaign, claimed.contact, outcome, pauses),
        );
        if (outcome.kind === 'disconnected') {
          await this.noteInstanceState(
            claimed.campaign,
            outcome.condition === 'not_paired' ? 'not_paired' : 'close',
            triedAt,
          );
        }
        return;
      }
      turn.sent += 1;
      const mayContinue = count < limit && !this.stopping && this.liveness.holdsLock;
      const goOn = await this.finishDelivered(
        claimed.campaign,
        claimed.contact,
        outcome,
        pauses,
        mayContinue,
      );
      if (claimed.campaign.disconnectedSince || isFirstSend(claimed.campaign)) {
        // Once per campaign and after each disconnection, not per message, and after the
        // delivery is recorded: the configuration shows the instance open again.
        await this.noteInstanceState(claimed.campaign, 'open', triedAt);
      }
      if (!goOn) {
        return;
      }
    }
  }

  /**
   * What a send proved about the instance, on its configuration (tracking or not): `close`,
   * `not_paired` (its QR code must be read) or `open` again, as of when the send began, so that
   * a connection event the gateway stamped during or after the send stays the latest. Shown,
   * never decided on: a failure to write it is only logged.
   */
  private async noteInstanceState(
    campaign: DispatchCampaign,
    state: string,
    at: Date,
  ): Promise<void> {
    try {
      await this.gatewayConfigs.recordInstanceState(campaign.gatewayConfigId, state, null, at);
    } catch (error) {
      this.logger.warn(
        { campaignId: campaign.id, err: describe(error) },
        'Instance state not recorded on its configuration',
      );
    }
  }

  /** A lease taken from a dead holder: its interrupted sends become UNCERTAIN first. */
  private async takeOver(manager: EntityManager, campaignId: number): Promise<void> {
    const campaign = await this.repository.lockCampaign(manager, campaignId);
    if (campaign && campaign.lockedBy === this.workerId) {
      await this.doubtInterruptedSends(manager, campaign);
    }
  }

  /**
   * The common case in one committed statement; the rest (campaign no longer ACTIVE, company
   * deactivated, nothing ready) goes through beginSend's transaction, which handles it.
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
    return this.transaction((manager) => this.beginSend(manager, campaignId, false));
  }

  /**
   * The repository's transaction, with the contacts it counted handed to the metrics once it
   * committed (a rolled-back transaction counts nothing).
   */
  private async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const tally: MessageTally = [];
    const result = await this.repository.transaction((manager) => {
      this.tallies.set(manager, tally);
      return work(manager);
    });
    for (const [outcome, reason, count] of tally) {
      this.metrics.countMessages(outcome, reason, count);
    }
    return result;
  }

  /** Counts contacts whose rows moved in `manager`'s transaction, once it commits. */
  private count(
    manager: EntityManager,
    outcome: MessageOutcome,
    reason: MessageReason,
    count = 1,
  ): void {
    const tally = this.tallies.get(manager);
    if (tally) {
      tally.push([outcome, reason, count]);
    } else {
      this.metrics.countMessages(outcome, reason, count);
    }
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
    if (takenOver) {
      // Without a dead holder, this finds nothing to doubt: cheap, and always correct.
      await this.doubtInterruptedSends(manager, campaign);
    }
    if (campaign.status !== 'ACTIVE') {
      await this.repository.release(manager, campaignId, this.workerId, null);
      return null;
    }
    if (!campaign.companyActive) {
      await this.pauseCampaign(manager, campaign, COMPANY_INACTIVE_REASON, false);
      return null;
    }
    const contact = await this.repository.takeNextContact(manager, campaignId);
    if (contact) {
      return { campaign, contact };
    }
    await this.settleWithoutContact(manager, campaign);
    return null;
  }

  /**
   * Contacts a dead worker left SENDING may have been sent: they are reconciled, never sent
   * again, and count as served for an automation's de-duplication.
   */
  private async doubtInterruptedSends(
    manager: EntityManager,
    campaign: DispatchCampaign,
  ): Promise<void> {
    const interrupted = await this.repository.doubtInterruptedSends(
      manager,
      campaign.id,
      this.config.reconcileDelaysMs[0],
    );
    if (interrupted.length === 0) {
      return;
    }
    this.count(manager, 'uncertain', 'interrupted', interrupted.length);
    this.logger.warn(
      { campaignId: campaign.id, interrupted: interrupted.length },
      'Contacts left SENDING by another worker will be reconciled with the gateway',
    );
    for (const contact of interrupted) {
      await this.lifecycle.contactSent(manager, campaign, contact);
    }
  }

  /** No contact is ready: look again at the next retry or reconciliation, or complete. */
  private async settleWithoutContact(
    manager: EntityManager,
    campaign: DispatchCampaign,
  ): Promise<void> {
    const lookAt = await this.repository.nextLookAt(manager, campaign.id);
    if (lookAt) {
      await this.repository.release(manager, campaign.id, this.workerId, lookAt);
      return;
    }
    const counters = await this.repository.complete(manager, campaign.id);
    if (counters) {
      await this.afterCompletion(manager, campaign, counters);
    } else {
      await this.repository.release(manager, campaign.id, this.workerId, null);
    }
  }

  /**
   * Everything between SENDING and the outcome. An error of ours before the gateway call is
   * `internal` (the contact goes back, never FAILED); a gateway error says what it proves.
   */
  private async deliver(campaign: DispatchCampaign, contact: ContactToSend): Promise<SendOutcome> {
    if (contact.blocked) {
      return { kind: 'failed', reason: BLOCKED_NUMBER_REASON, paced: false, cause: 'blocked' };
    }
    let prepared: { target: GatewayTarget; messages: OutgoingMessage[] };
    try {
      prepared = await this.prepare(campaign, contact);
    } catch (error) {
      return this.internalOutcome(error, campaign, contact);
    }
    const [first, ...rest] = prepared.messages;
    if (isBlankMessage(first)) {
      return {
        kind: 'failed',
        reason: BLANK_MESSAGE_REASON,
        paced: false,
        cause: 'blank_message',
      };
    }
    try {
      const sent = await this.gateway.send(prepared.target, contact.phoneNumber, first);
      await this.sendFollowUps(prepared.target, contact, rest, campaign.id);
      return { kind: 'sent', sent, text: sentTextOf(prepared.messages) };
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        // Thrown after the request may have left: its outcome cannot be known.
        this.logger.error({ contactId: contact.id, err: error }, 'Unexpected error while sending');
        return {
          kind: 'uncertain',
          reason: 'erro inesperado durante o envio',
          cause: 'unexpected_error',
        };
      }
      return this.classify(error, contact, first);
    }
  }

  private async prepare(
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): Promise<{ target: GatewayTarget; messages: OutgoingMessage[] }> {
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
    return { target, messages };
  }

  private internalOutcome(
    error: unknown,
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): SendOutcome {
    this.logger.error(
      { campaignId: campaign.id, contactId: contact.id, err: error },
      'Send not prepared; the contact goes back to PENDING',
    );
    const reason =
      error instanceof DomainError ? error.message : 'erro interno ao preparar o envio';
    return { kind: 'internal', reason };
  }

  /** The text after a voice note: the contact already got the main message, so a failure here is only logged. */
  private async sendFollowUps(
    target: GatewayTarget,
    contact: ContactToSend,
    messages: OutgoingMessage[],
    campaignId: number,
  ): Promise<void> {
    for (const message of messages) {
      if (isBlankMessage(message)) {
        continue;
      }
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

  private classify(
    error: GatewayError,
    contact: ContactToSend,
    message: OutgoingMessage,
  ): UnsentOutcome {
    switch (error.kind) {
      case 'refused_number':
        return {
          kind: 'failed',
          reason: 'número não está no WhatsApp',
          paced: true,
          cause: 'refused_number',
        };
      case 'rejected':
        return {
          kind: 'failed',
          reason: `recusado pelo gateway: ${error.message}`.slice(0, 500),
          paced: true,
          cause: 'rejected',
        };
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
        return {
          kind: 'disconnected',
          reason: 'instância do gateway desconectada',
          condition: error.instanceCondition,
        };
      case 'uncertain':
        return { kind: 'uncertain', reason: error.message, cause: 'gateway' };
      case 'media_unreachable':
        return { kind: 'media_unreachable', reason: mediaUnreachableReason(message) };
      case 'transient':
        return contact.attempts >= MAX_SEND_ATTEMPTS
          ? {
              kind: 'failed',
              reason: `falha temporária do gateway após ${MAX_SEND_ATTEMPTS} tentativas`,
              paced: true,
              cause: 'retries_exhausted',
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
    outcome: { kind: 'sent'; sent: SentMessage; text: string | null },
    pauses: Pauses,
    mayContinue: boolean,
  ): Promise<boolean> {
    const delivered = { id: contact.id, messageId: outcome.sent.messageId, text: outcome.text };
    const counters = this.lifecycle.followsContactsOf(campaign)
      ? await this.transaction(async (manager) => {
          const counted = await this.repository.recordDelivered(
            campaign.id,
            this.workerId,
            delivered,
            pauses,
            manager,
          );
          await this.lifecycle.contactSent(manager, campaign, contact);
          return counted;
        })
      : await this.repository.recordDelivered(campaign.id, this.workerId, delivered, pauses);
    if (counters.contactMoved) {
      this.metrics.countMessages('sent', 'gateway');
    }
    if (!counters.leaseHeld) {
      // Another worker took the campaign over while this message was in flight: the outcome
      // is recorded, the rest (events, lease, next send) is the new holder's.
      return false;
    }
    const ended = counters.sentContacts + counters.failedContacts >= counters.totalContacts;
    const goOn = mayContinue && !ended && pauses.pauseSeconds === 0 && !counters.longPause;
    if (ended || progressStepOf(counters) > counters.progressStep) {
      await this.transaction(async (manager) => {
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

  /** Every outcome that did not deliver: the contact's transition, then the campaign's. */
  private async finishUnsent(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: UnsentOutcome,
    pauses: Pauses,
  ): Promise<void> {
    const pauseMs = Math.round(pauses.pauseSeconds * 1000);
    switch (outcome.kind) {
      case 'failed': {
        const counters = await this.repository.failContact(manager, campaign.id, contact.id, {
          reason: outcome.reason,
          kind: outcome.cause,
          signal: sendSignalOf(outcome),
        });
        if (counters.contactMoved) {
          this.count(manager, 'failed', outcome.cause);
        }
        const next = await this.repository.rescheduleAndRelease(
          manager,
          campaign.id,
          this.workerId,
          {
            nextSendInMs: outcome.paced ? pauseMs : 0,
            cause: 'failed',
            instancePaced: outcome.paced,
          },
        );
        if (!next.leaseHeld) {
          return;
        }
        await this.afterCounting(manager, campaign, counters);
        const banSignal = banSignalOf(counters, autoPauseOf(counters.autoPause));
        if (counters.contactMoved && banSignal) {
          await this.pauseCampaign(manager, campaign, banSignal, true);
        }
        return;
      }
      case 'uncertain': {
        this.logger.warn(
          { campaignId: campaign.id, contactId: contact.id, reason: outcome.reason },
          'Send outcome unknown; reconciling with the gateway, never resending',
        );
        if (await this.repository.doubtContact(manager, contact.id, this.reconcileDelayMs())) {
          this.count(manager, 'uncertain', outcome.cause);
          await this.lifecycle.contactSent(manager, campaign, contact);
        }
        await this.repository.rescheduleAndRelease(manager, campaign.id, this.workerId, {
          nextSendInMs: pauseMs,
          cause: 'sent',
          instancePaced: true,
        });
        return;
      }
      case 'retry': {
        const delay = RETRY_DELAYS_MS[Math.min(contact.attempts - 1, RETRY_DELAYS_MS.length - 1)];
        // Nothing went out, so the campaign's pause does not apply: the retry comes on time.
        return this.requeue(manager, campaign, contact, {
          retryInMs: delay,
          countAttempt: true,
          nextSendInMs: Math.min(delay, pauseMs),
          cause: 'gateway',
        });
      }
      case 'disconnected':
        return this.onDisconnected(manager, campaign, contact, outcome.condition);
      case 'media_unreachable':
        return this.onMediaUnreachable(manager, campaign, contact, outcome.reason);
      case 'internal':
        return this.onInternalError(manager, campaign, contact, outcome.reason);
      case 'campaign_failed':
        await this.putBack(manager, campaign, contact, 'gateway');
        return this.failCampaign(manager, campaign, outcome.reason);
    }
  }

  private reconcileDelayMs(): number {
    return this.config.reconcileDelaysMs[0];
  }

  private async requeue(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    requeue: Requeue,
  ): Promise<void> {
    await this.repository.requeueContact(manager, campaign.id, contact.id, requeue);
    await this.repository.rescheduleAndRelease(manager, campaign.id, this.workerId, {
      nextSendInMs: requeue.nextSendInMs,
      cause: requeue.cause,
    });
  }

  /** The contact back to PENDING, ready at once and untouched: nothing went out, no attempt counts. */
  private putBack(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    cause: Requeue['cause'],
  ): Promise<void> {
    return this.repository.requeueContact(manager, campaign.id, contact.id, {
      retryInMs: 0,
      countAttempt: false,
      nextSendInMs: 0,
      cause,
    });
  }

  /**
   * The instance cannot send: the contact goes back untouched (no attempt counted), the
   * campaign says what it waits for and looks again in a few seconds; after
   * DISCONNECTED_FAIL_AFTER_MS of it the campaign fails, its contacts still PENDING.
   */
  private async onDisconnected(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    condition: InstanceCondition | null,
  ): Promise<void> {
    await this.putBack(manager, campaign, contact, 'disconnected');
    const result = await this.repository.rescheduleAndRelease(manager, campaign.id, this.workerId, {
      nextSendInMs: DISCONNECTED_RECHECK_MS,
      cause: 'disconnected',
      waitingReason: condition === 'not_paired' ? 'INSTANCE_NOT_PAIRED' : 'INSTANCE_DISCONNECTED',
    });
    if (!result.leaseHeld) {
      return;
    }
    const notPaired = result.waitingReason === 'INSTANCE_NOT_PAIRED';
    if (result.disconnectedForMs >= DISCONNECTED_FAIL_AFTER_MS) {
      return this.failCampaign(
        manager,
        campaign,
        notPaired ? DISCONNECTED_FAIL_REASON.notPaired : DISCONNECTED_FAIL_REASON.disconnected,
      );
    }
    if (!campaign.disconnectedSince && result.disconnectedSince && campaign.notificationPhone) {
      await this.notices.enqueue(manager, {
        companyId: campaign.companyId,
        gatewayConfigId: campaign.gatewayConfigId,
        phoneNumber: campaign.notificationPhone,
        text: `⚠️ A instância do WhatsApp da campanha "${campaign.name}" ${notPaired ? 'não está pareada: leia o QR code da instância' : 'desconectou'}. O envio continua quando ela conectar.`,
        reason: 'instance_disconnected',
        dedupKey: `campaign:${campaign.id}:disconnected:${result.disconnectedSince.toISOString()}`,
      });
    }
  }

  /**
   * The gateway cannot fetch the media, and would fail every contact alike: the contact goes
   * back untouched and the campaign pauses once, naming the URL, for a person to fix the media
   * (or the gateway's network) and resume; an automation's run fails instead.
   */
  private async onMediaUnreachable(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    reason: string,
  ): Promise<void> {
    await this.putBack(manager, campaign, contact, 'gateway');
    await this.pauseCampaign(manager, campaign, reason, true);
  }

  /**
   * Our own fault (a key that does not open, a pool timeout, a configuration deleted under
   * us): the contact goes back untouched, and after a few in a row a person has to look.
   */
  private async onInternalError(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    reason: string,
  ): Promise<void> {
    await this.putBack(manager, campaign, contact, 'internal');
    const result = await this.repository.rescheduleAndRelease(manager, campaign.id, this.workerId, {
      nextSendInMs: INTERNAL_ERROR_RETRY_MS,
      cause: 'internal',
    });
    if (result.leaseHeld && result.internalErrorStreak >= INTERNAL_ERRORS_BEFORE_PAUSE) {
      await this.pauseCampaign(
        manager,
        campaign,
        `envio interrompido por um erro interno repetido: ${reason}`.slice(0, 500),
        true,
      );
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

  /**
   * Pauses a campaign for a reason found outside a send (its instance logged out of
   * WhatsApp), with the same event as a send that found it. No notice: it would go through
   * the instance that cannot send.
   */
  async pauseCampaignNow(campaignId: number, reason: string): Promise<void> {
    await this.transaction(async (manager) => {
      const campaign = await this.repository.lockCampaign(manager, campaignId);
      if (campaign) {
        await this.pauseCampaign(manager, campaign, reason, false);
      }
    });
  }

  private async failCampaign(
    manager: EntityManager,
    campaign: DispatchCampaign,
    reason: string,
    notify = true,
  ): Promise<void> {
    const counters = await this.repository.fail(manager, campaign.id, reason);
    if (!counters) {
      await this.repository.release(manager, campaign.id, this.workerId, null);
      return;
    }
    this.logger.warn({ campaignId: campaign.id, reason }, 'Campaign failed');
    await this.appendEvents(manager, campaign, [
      failedEvent(campaign, counters, this.clock.now(), reason),
    ]);
    if (notify) {
      await this.notify(
        manager,
        campaign,
        'failed',
        `❌ ${subjectOf(campaign)} falhou: ${reason}.`,
      );
    }
    await this.lifecycle.campaignEnded(manager, campaign, counters, reason);
  }

  /**
   * The engine's own pause: a person looks and resumes. `notify`: false when the company may
   * not send (its notice would go through the same gateway). An automation's run cannot be
   * resumed by anyone, so it fails with the reason instead and the automation runs again at
   * its next occurrence.
   */
  private async pauseCampaign(
    manager: EntityManager,
    campaign: DispatchCampaign,
    reason: string,
    notify: boolean,
  ): Promise<void> {
    if (campaign.automationRunId !== null) {
      return this.failCampaign(manager, campaign, reason, notify);
    }
    const counters = await this.repository.pause(manager, campaign.id, reason);
    if (!counters) {
      await this.repository.release(manager, campaign.id, this.workerId, null);
      return;
    }
    this.logger.warn({ campaignId: campaign.id, reason }, 'Campaign paused by the engine');
    await this.appendEvents(manager, campaign, [
      pausedEvent(campaign, counters, this.clock.now(), reason),
    ]);
    if (notify) {
      await this.notify(
        manager,
        campaign,
        `paused:${counters.sentContacts + counters.failedContacts}`,
        `⏸️ ${subjectOf(campaign)} foi pausada: ${reason}. Corrija e retome o envio.`,
      );
    }
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
      reason: `campaign_${what.split(':')[0]}`,
      dedupKey: `campaign:${campaign.id}:${what}`,
    });
  }
}

/** What a failed send says about the number (a send made through the gateway says something). */
function sendSignalOf(outcome: Extract<SendOutcome, { kind: 'failed' }>): SendSignal {
  if (!outcome.paced) {
    return null;
  }
  return outcome.cause === 'refused_number' ? 'refused' : 'failed';
}

/** What a turn on the instance came to: messages that went out or may have. */
interface InstanceTurn {
  sent: number;
}

/** The pauses after a message: uniform draws in [min, max] seconds, ms precision. */
function drawPauses(campaign: DispatchCampaign): Pauses {
  return {
    pauseSeconds: drawSeconds(campaign.minInterval, campaign.maxInterval),
    longPauseSeconds:
      campaign.longPauseEvery === null
        ? 0
        : drawSeconds(campaign.longPauseMin ?? 0, campaign.longPauseMax ?? 0),
  };
}

function drawSeconds(min: number, max: number): number {
  return Math.round((min + Math.random() * (max - min)) * 1000) / 1000;
}

function subjectOf(campaign: DispatchCampaign): string {
  return campaign.automationRunId === null
    ? `A campanha "${campaign.name}"`
    : `A execução da ${campaign.name.replace(/^Automação: /, 'automação "')}"`;
}

function completionNotice(campaign: DispatchCampaign, counts: CampaignCounts): string {
  return `✅ ${subjectOf(campaign)} foi concluída: ${counts.sentContacts} enviadas, ${counts.failedContacts} com falha, de ${counts.totalContacts} contatos.`;
}

function isFirstSend(campaign: DispatchCampaign): boolean {
  return campaign.sentContacts === 0 && campaign.failedContacts === 0;
}

/**
 * Names the URL the gateway could not fetch (without its query); not why, which would tell a
 * tenant what the gateway's network refuses or cannot resolve.
 */
function mediaUnreachableReason(message: OutgoingMessage): string {
  const url = fetchedMediaUrlOf(message);
  const subject = url ? `a mídia ${url}` : 'a mídia da mensagem';
  return `${subject} está inacessível para o gateway`.slice(0, 500);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
