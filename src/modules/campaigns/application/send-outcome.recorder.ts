import { Injectable, Logger } from '@nestjs/common';
import { autoPauseOf } from '../../../common/messaging/auto-pause';
import type { MessageOutcome, MessageReason } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { AppConfig } from '../../../config/app-config.service';
import { milestoneCount, pauseAfterDelivery } from '../domain/delivery-rules';
import { banSignalOf } from '../domain/ban-signals';
import { disconnectedNotice } from '../domain/campaign-notices';
import { allProcessed, progressStepOf } from '../domain/campaign-stats';
import {
  DISCONNECTED_RECHECK_MS,
  disconnectedFailReason,
  disconnectionWaitOf,
  INTERNAL_ERROR_RETRY_MS,
  internalErrorPauseReason,
} from '../domain/campaign-stops';
import {
  DeliveredOutcome,
  FailedOutcome,
  InstanceCondition,
  pacesInstance,
  requeueOf,
  sendSignalOf,
  UncertainOutcome,
  UnsentOutcome,
} from '../domain/send-outcome';
import { nextIsDueAtOnce, pauseMsOf, SendPauses } from '../domain/send-pauses';
import { watchedCountsOfFailure } from '../domain/watched-counts';
import type {
  CampaignCounters,
  ContactToSend,
  Delivery,
  DeliveryRecorded,
  DispatchCampaign,
  Requeue,
  RequeueResult,
} from '../domain/dispatch-records';
import { DispatchLeaseRepository, Reschedule } from '../infrastructure/dispatch-lease.repository';
import { DispatchOutcomeRepository } from '../infrastructure/dispatch-outcome.repository';
import { CampaignEngineTransitions } from './campaign-engine-transitions';
import { CampaignLifecycle } from './campaign-lifecycle';

/** A contact whose row moved to an outcome, counted once its transaction committed. */
interface CountedContact {
  outcome: MessageOutcome;
  reason: MessageReason;
}

/** What became of the turn on the instance after a delivery. */
export interface AfterDelivery {
  /** The next message goes now, under the same lease. */
  goOn: boolean;
  /** The delivery statement ended the turn: the instance's hold ended and its messages were counted. */
  instanceReleased: boolean;
}

/**
 * Stores what a send proved (docs/ARCHITECTURE.md, "Gateway outcomes"): the contact's
 * transition, then the campaign's (next send, lease, progress, a pause or a failure). Every
 * write checks the lease: a worker that lost it records the contact's outcome and nothing else.
 */
@Injectable()
export class SendOutcomeRecorder {
  private readonly logger = new Logger(SendOutcomeRecorder.name);

  constructor(
    private readonly outcomes: DispatchOutcomeRepository,
    private readonly leases: DispatchLeaseRepository,
    private readonly transitions: CampaignEngineTransitions,
    private readonly lifecycle: CampaignLifecycle,
    private readonly unitOfWork: UnitOfWork,
    private readonly config: AppConfig,
    private readonly liveness: WorkerLiveness,
    private readonly metrics: Metrics,
  ) {}

  private get workerId(): string {
    return this.liveness.workerId;
  }

  /**
   * Records a delivered message — the turn's `turnMessages`-th — and when the turn ends with
   * it (no next message due at once, or not `mayContinue`), gives the lease and the instance
   * back in the same statement; when a progress step was crossed, the events are written and
   * the lease given back after them.
   */
  async recordDelivered(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: DeliveredOutcome,
    pauses: SendPauses,
    turn: { mayContinue: boolean; messages: number },
  ): Promise<AfterDelivery> {
    const pause = pauseAfterDelivery(campaign, pauses);
    const delivery: Delivery = {
      contactId: contact.id,
      messageId: outcome.messageId,
      text: outcome.text,
      ...pause,
      pauseDraw: pauses.draw,
      endsTurn: !turn.mayContinue || !nextIsDueAtOnce(pauses, pause.waitingReason !== null),
      milestoneCount: milestoneCount(campaign),
      turnMessages: turn.messages,
    };
    const counters = await this.storeDelivered(campaign, contact, delivery);
    if (counters.contactMoved) {
      this.metrics.countMessages('sent', 'gateway');
    }
    if (!counters.leaseHeld) {
      // The turn ended with the delivery, or another worker took the campaign over while this
      // message was in flight: the rest (events, lease, next send) is the new holder's.
      return { goOn: false, instanceReleased: true };
    }
    const goOn = !delivery.endsTurn && !allProcessed(counters);
    await this.afterDelivered(campaign, counters, goOn);
    return { goOn, instanceReleased: false };
  }

  /**
   * Every outcome that did not deliver, in one transaction: the contact's transition, then
   * the campaign's; the contact counted in the metrics once it committed.
   */
  async recordUnsent(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: UnsentOutcome,
    pauses: SendPauses,
  ): Promise<void> {
    const counted = await this.unitOfWork.run((tx) =>
      this.settleUnsent(tx, campaign, contact, outcome, pauses),
    );
    if (counted) {
      this.metrics.countMessages(counted.outcome, counted.reason);
    }
  }

  /** In one statement, unless a lifecycle listener follows the campaign's contacts. */
  private storeDelivered(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    delivery: Delivery,
  ): Promise<DeliveryRecorded> {
    if (!this.lifecycle.followsContactsOf(campaign)) {
      return this.outcomes.recordDelivered(null, campaign.id, this.workerId, delivery);
    }
    return this.unitOfWork.run(async (tx) => {
      const counted = await this.outcomes.recordDelivered(tx, campaign.id, this.workerId, delivery);
      await this.lifecycle.contactSent(tx, campaign, contact);
      return counted;
    });
  }

  private async afterDelivered(
    campaign: DispatchCampaign,
    counters: CampaignCounters,
    goOn: boolean,
  ): Promise<void> {
    if (allProcessed(counters) || progressStepOf(counters) > counters.progressStep) {
      await this.unitOfWork.run(async (tx) => {
        await this.transitions.progress(tx, campaign, counters);
        if (!goOn) {
          await this.leases.release(tx, campaign.id, this.workerId);
        }
      });
    } else if (!goOn) {
      await this.leases.release(null, campaign.id, this.workerId);
    }
  }

  /** Failed and uncertain contacts are counted; the other outcomes sent nothing. */
  private async settleUnsent(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: UnsentOutcome,
    pauses: SendPauses,
  ): Promise<CountedContact | null> {
    switch (outcome.kind) {
      case 'failed':
        return this.onFailed(tx, campaign, contact, outcome, pauses);
      case 'uncertain':
        return this.onUncertain(tx, campaign, contact, outcome, pauses);
      case 'retry':
      case 'throttled':
        await this.requeue(
          tx,
          campaign,
          contact,
          requeueOf(outcome, contact.attempts, pauseMsOf(pauses)),
        );
        return null;
      case 'disconnected':
        await this.onDisconnected(tx, campaign, contact, outcome.condition);
        return null;
      case 'media_unreachable':
      case 'account_blocked':
        await this.onCampaignHeld(tx, campaign, contact, outcome.reason);
        return null;
      case 'internal':
        await this.onInternalError(tx, campaign, contact, outcome.reason);
        return null;
      case 'campaign_failed':
        await this.putBack(tx, campaign, contact, 'gateway');
        await this.transitions.fail(tx, campaign, outcome.reason, { scope: 'sender' });
        return null;
    }
  }

  /**
   * The contact FAILED; the campaign's next send after its pause when a gateway call was
   * made; its progress, and a pause when its failures look like a ban signal.
   */
  private async onFailed(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: FailedOutcome,
    pauses: SendPauses,
  ): Promise<CountedContact | null> {
    const thresholds = autoPauseOf(campaign.autoPause);
    const counters = await this.outcomes.failContact(tx, campaign.id, contact.id, {
      reason: outcome.reason,
      kind: outcome.cause,
      counts: watchedCountsOfFailure(
        sendSignalOf(outcome),
        campaign.watchedSends,
        thresholds.refusedSample,
      ),
    });
    const counted = counters.contactMoved ? countedAs('failed', outcome.cause) : null;
    const next = await this.reschedule(tx, campaign, {
      nextSendInMs: outcome.paced ? pauseMsOf(pauses) : 0,
      cause: 'failed',
      instancePaced: pacesInstance(outcome),
    });
    if (!next.leaseHeld) {
      return counted;
    }
    await this.transitions.progress(tx, campaign, counters);
    const banSignal = banSignalOf(counters, thresholds);
    if (counters.contactMoved && banSignal) {
      await this.transitions.pause(tx, campaign, banSignal);
    }
    return counted;
  }

  /**
   * The contact UNCERTAIN, its first look into the gateway's store due; it counts as served
   * for an automation, and the instance waits its pause as after a send.
   */
  private async onUncertain(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: UncertainOutcome,
    pauses: SendPauses,
  ): Promise<CountedContact | null> {
    this.logger.warn(
      { campaignId: campaign.id, contactId: contact.id, reason: outcome.reason },
      'Send outcome unknown; reconciling with the gateway, never resending',
    );
    const doubted = await this.outcomes.doubtContact(
      tx,
      campaign.id,
      contact.id,
      this.config.reconcileDelaysMs[0],
    );
    if (doubted) {
      await this.lifecycle.contactSent(tx, campaign, contact);
    }
    await this.reschedule(tx, campaign, {
      nextSendInMs: pauseMsOf(pauses),
      cause: 'sent',
      instancePaced: pacesInstance(outcome),
    });
    return doubted ? countedAs('uncertain', outcome.cause) : null;
  }

  /**
   * The instance cannot send: the contact goes back untouched (no attempt counted), the
   * campaign says what it waits for and looks again in a few seconds; after
   * DISCONNECTED_FAIL_AFTER_MS of it the campaign fails, its contacts still PENDING.
   */
  private async onDisconnected(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    condition: InstanceCondition | null,
  ): Promise<void> {
    await this.putBack(tx, campaign, contact, 'disconnected');
    const result = await this.reschedule(tx, campaign, {
      nextSendInMs: DISCONNECTED_RECHECK_MS,
      cause: 'disconnected',
      waitingReason: disconnectionWaitOf(condition),
    });
    if (!result.leaseHeld) {
      return;
    }
    const failReason = disconnectedFailReason(result.disconnectedForMs, result.waitingReason);
    if (failReason) {
      return this.transitions.fail(tx, campaign, failReason, { scope: 'sender' });
    }
    if (!campaign.disconnectedSince && result.disconnectedSince) {
      const notPaired = result.waitingReason === 'INSTANCE_NOT_PAIRED';
      const notice = disconnectedNotice(campaign, notPaired, result.disconnectedSince);
      await this.transitions.notify(tx, campaign, notice);
    }
  }

  /**
   * The gateway cannot fetch the media, or Meta's account cannot send (token, payment, a locked
   * account, a paused template), and every contact would fail alike: the contact goes back
   * untouched and the campaign pauses once, with the reason, for a person to fix it and resume;
   * an automation's run fails instead.
   */
  private async onCampaignHeld(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    reason: string,
  ): Promise<void> {
    await this.putBack(tx, campaign, contact, 'gateway');
    await this.transitions.pause(tx, campaign, reason);
  }

  /**
   * Our own fault (a key that does not open, a pool timeout, a configuration deleted under
   * us): the contact goes back untouched, and after a few in a row a person has to look.
   */
  private async onInternalError(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    reason: string,
  ): Promise<void> {
    await this.putBack(tx, campaign, contact, 'internal');
    const result = await this.reschedule(tx, campaign, {
      nextSendInMs: INTERNAL_ERROR_RETRY_MS,
      cause: 'internal',
    });
    const pauseReason = internalErrorPauseReason(result.internalErrorStreak, reason);
    if (result.leaseHeld && pauseReason) {
      await this.transitions.pause(tx, campaign, pauseReason, { scope: 'sender' });
    }
  }

  private async requeue(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    requeue: Requeue & { instancePaced: boolean },
  ): Promise<void> {
    await this.outcomes.requeueContact(tx, campaign.id, contact.id, requeue);
    await this.reschedule(tx, campaign, {
      nextSendInMs: requeue.nextSendInMs,
      cause: requeue.cause,
      instancePaced: requeue.instancePaced,
    });
  }

  /** The campaign's next send and the lease back, while this worker holds it. */
  private reschedule(
    tx: Transaction,
    campaign: DispatchCampaign,
    next: Reschedule,
  ): Promise<RequeueResult> {
    return this.leases.rescheduleAndRelease(tx, campaign.id, this.workerId, next);
  }

  /** The contact back to PENDING, ready at once and untouched: nothing went out, no attempt counts. */
  private putBack(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
    cause: Requeue['cause'],
  ): Promise<void> {
    return this.outcomes.requeueContact(tx, campaign.id, contact.id, {
      retryInMs: 0,
      countAttempt: false,
      nextSendInMs: 0,
      cause,
    });
  }
}

function countedAs(outcome: MessageOutcome, reason: MessageReason): CountedContact {
  return { outcome, reason };
}
