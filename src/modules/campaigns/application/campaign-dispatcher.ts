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
import { allProcessed, isFirstSend, progressStepOf } from '../domain/campaign-stats';
import { banSignalOf } from '../domain/ban-signals';
import {
  CampaignNotice,
  completionNotice,
  disconnectedNotice,
  failedNotice,
  pausedNotice,
} from '../domain/campaign-notices';
import {
  COMPANY_INACTIVE_REASON,
  DISCONNECTED_RECHECK_MS,
  disconnectedFailReason,
  disconnectionWaitOf,
  INTERNAL_ERROR_RETRY_MS,
  internalErrorPauseReason,
} from '../domain/campaign-stops';
import {
  blankMessageOutcome,
  blockedNumberOutcome,
  classify,
  DeliveredOutcome,
  internalOutcome,
  retryDelayMs,
  sendSignalOf,
  SendOutcome,
  unexpectedErrorOutcome,
  UnsentOutcome,
} from '../domain/send-outcome';
import { drawPauses, messagesPerTurn, nextIsDueAtOnce, pauseMsOf } from '../domain/send-pauses';
import { autoPauseOf } from '../../../common/messaging/auto-pause';
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
    const limit = messagesPerTurn(quota);
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
      return blockedNumberOutcome();
    }
    let prepared: { target: GatewayTarget; messages: OutgoingMessage[] };
    try {
      prepared = await this.prepare(campaign, contact);
    } catch (error) {
      return this.internalOutcome(error, campaign, contact);
    }
    const [first, ...rest] = prepared.messages;
    if (isBlankMessage(first)) {
      return blankMessageOutcome();
    }
    try {
      const sent = await this.gateway.send(prepared.target, contact.phoneNumber, first);
      await this.sendFollowUps(prepared.target, contact, rest, campaign.id);
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
    return internalOutcome(error instanceof DomainError ? error.message : null);
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

  /**
   * Records a delivered message — in one statement unless a lifecycle listener follows the
   * campaign's contacts — then writes the progress events when a step was crossed, and gives
   * the lease back unless the next message is due at once. Answers whether to send it.
   */
  private async finishDelivered(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: DeliveredOutcome,
    pauses: Pauses,
    mayContinue: boolean,
  ): Promise<boolean> {
    const delivered = { id: contact.id, messageId: outcome.messageId, text: outcome.text };
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
    const ended = allProcessed(counters);
    const goOn = mayContinue && !ended && nextIsDueAtOnce(pauses, counters.longPause);
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
    const pauseMs = pauseMsOf(pauses);
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
        const delay = retryDelayMs(contact.attempts);
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
      waitingReason: disconnectionWaitOf(condition),
    });
    if (!result.leaseHeld) {
      return;
    }
    const failReason = disconnectedFailReason(result.disconnectedForMs, result.waitingReason);
    if (failReason) {
      return this.failCampaign(manager, campaign, failReason);
    }
    if (!campaign.disconnectedSince && result.disconnectedSince) {
      const notPaired = result.waitingReason === 'INSTANCE_NOT_PAIRED';
      await this.notify(
        manager,
        campaign,
        disconnectedNotice(campaign, notPaired, result.disconnectedSince),
      );
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
    const pauseReason = internalErrorPauseReason(result.internalErrorStreak, reason);
    if (result.leaseHeld && pauseReason) {
      await this.pauseCampaign(manager, campaign, pauseReason, true);
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
    if (allProcessed(counters) && counters.status === 'ACTIVE') {
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
    await this.notify(manager, campaign, completionNotice(campaign, counters));
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
      await this.notify(manager, campaign, failedNotice(campaign, reason));
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
      await this.notify(manager, campaign, pausedNotice(campaign, counters, reason));
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
    notice: CampaignNotice,
  ): Promise<void> {
    if (!campaign.notificationPhone) {
      return;
    }
    await this.notices.enqueue(manager, {
      companyId: campaign.companyId,
      gatewayConfigId: campaign.gatewayConfigId,
      phoneNumber: campaign.notificationPhone,
      ...notice,
    });
  }
}

/** What a turn on the instance came to: messages that went out or may have. */
interface InstanceTurn {
  sent: number;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
