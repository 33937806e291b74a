import { Injectable, Logger } from '@nestjs/common';
import { Metrics } from '../../../common/metrics/metrics';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { Clock } from '../../../common/time/clock';
import { nextWindowOpening } from '../../../common/time/sending-window';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { AppConfig } from '../../../config/app-config.service';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { InstancePacing, SlotAnswer } from '../../gateway/application/ports/instance-pacing';
import { isFirstSend } from '../domain/campaign-stats';
import { COMPANY_INACTIVE_REASON } from '../domain/campaign-stops';
import { drawPauses, messagesPerTurn } from '../domain/send-pauses';
import { pacesInstance } from '../domain/send-outcome';
import {
  sendsAtThroughput,
  THROTTLED_REST_SECONDS,
  throughputTurnSize,
} from '../domain/throughput-turns';
import type { BegunSend, ClaimedCampaign, DispatchCampaign } from '../domain/dispatch-records';
import { DispatchClaimRepository } from '../infrastructure/dispatch-claim.repository';
import { DispatchLeaseRepository } from '../infrastructure/dispatch-lease.repository';
import { CampaignEngineTransitions } from './campaign-engine-transitions';
import { CampaignLifecycle } from './campaign-lifecycle';
import { CampaignMessageSender } from './campaign-message.sender';
import { InstanceTurn, newInstanceTurn } from './instance-turn';
import { SendOutcomeRecorder } from './send-outcome.recorder';
import { ThroughputTurns } from './throughput-turns';

/**
 * Sends the messages of one leased campaign, one at a time: begins a send (re-reads the
 * campaign under its lease, marks the next contact SENDING and commits before the gateway
 * call: at most once), delivers it, and has its outcome recorded (docs/ARCHITECTURE.md,
 * "Gateway outcomes"), which writes the progress events and the next send time and releases
 * the lease.
 */
@Injectable()
export class CampaignDispatcher {
  private readonly logger = new Logger(CampaignDispatcher.name);
  private stopping = false;

  constructor(
    private readonly claims: DispatchClaimRepository,
    private readonly leases: DispatchLeaseRepository,
    private readonly sender: CampaignMessageSender,
    private readonly recorder: SendOutcomeRecorder,
    private readonly transitions: CampaignEngineTransitions,
    private readonly lifecycle: CampaignLifecycle,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly liveness: WorkerLiveness,
    private readonly metrics: Metrics,
    private readonly pacing: InstancePacing,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly throughputTurns: ThroughputTurns,
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
   * reached: the claim held it, or InstancePacing holds it now), it sends its next message, and the ones after it while they are due at once
   * (zero intervals), up to MESSAGES_PER_LEASE and the instance's quota of the day; then the
   * instance waits the pause drawn for the last message. Otherwise the campaign waits for the
   * window, the instance's next day or its next slot.
   */
  async sendNext(claim: ClaimedCampaign): Promise<void> {
    if (claim.takenOver) {
      // Before anything may defer it: what a dead holder left SENDING is reconciled, never lost.
      await this.takeOver(claim.id);
    }
    const opensAt = claim.sendingWindow
      ? nextWindowOpening(claim.sendingWindow, this.clock.now())
      : null;
    if (opensAt) {
      const { instanceHeld } = claim;
      return this.leases.defer(claim.id, this.workerId, {
        until: opensAt,
        reason: 'OUTSIDE_WINDOW',
        instanceHeld,
      });
    }
    const slot = await this.holdInstance(claim);
    if (!slot.held) {
      const reason = slot.reason === 'DAILY_LIMIT' ? 'DAILY_LIMIT' : null;
      const until = slot.retryAt;
      return this.leases.defer(claim.id, this.workerId, { until, reason, instanceHeld: false });
    }
    const turn = newInstanceTurn();
    try {
      if (sendsAtThroughput(claim)) {
        await this.sendAtThroughput(claim, claim.throughputPerSecond, slot.quota, turn);
      } else {
        await this.sendTurn(claim, messagesPerTurn(slot.quota), turn);
      }
    } finally {
      if (!turn.released) {
        await this.pacing.release(claim.gatewayConfigId, this.workerId, turn);
      }
    }
  }

  /**
   * A Cloud API number's turn at its throughput (ThroughputTurns); when no contact was ready,
   * the campaign is settled as after any turn (a contact due again, its next look, completion).
   */
  private async sendAtThroughput(
    claim: ClaimedCampaign,
    perSecond: number,
    quota: number | null,
    turn: InstanceTurn,
  ): Promise<void> {
    const limit = throughputTurnSize(perSecond, quota);
    const { drained } = await this.throughputTurns.send(
      claim,
      perSecond,
      limit,
      turn,
      () => this.stopping,
    );
    if (drained) {
      await this.sendTurn({ ...claim, firstSend: null }, 1, turn);
    }
  }

  /** The hold the claim took, or one taken now (the claim could not: see ClaimedCampaign). */
  private holdInstance(claim: ClaimedCampaign): Promise<SlotAnswer> {
    if (claim.instanceHeld) {
      return Promise.resolve({ held: true, quota: claim.quota });
    }
    return this.pacing.hold(
      claim.gatewayConfigId,
      this.workerId,
      this.config.dispatchLeaseSeconds,
      { minSeconds: claim.minInterval, maxSeconds: claim.maxInterval },
    );
  }

  /**
   * Pauses a campaign for a reason found outside a send (its instance logged out of
   * WhatsApp); see CampaignEngineTransitions.pauseNow.
   */
  pauseCampaignNow(campaignId: number, reason: string): Promise<void> {
    return this.transitions.pauseNow(campaignId, reason, 'sender');
  }

  /** Up to `limit` messages, while each next one is due the moment the last was recorded. */
  private async sendTurn(claim: ClaimedCampaign, limit: number, turn: InstanceTurn): Promise<void> {
    // A deactivated company's campaign is paused by beginSend's transaction.
    let send =
      claim.firstSend ??
      (claim.companyActive ? await this.beginLeasedSend(claim.id) : await this.beginSend(claim.id));
    for (let count = 1; send; count += 1) {
      if (!(await this.sendOne(send, count < limit, turn))) {
        return;
      }
      if (this.stopping) {
        // Shutdown began after the last message: hand the campaign to another worker now.
        return this.leases.release(null, claim.id, this.workerId);
      }
      send = await this.beginLeasedSend(claim.id);
    }
  }

  /** Delivers one begun send and records its outcome; answers whether the next goes now. */
  private async sendOne(
    send: BegunSend,
    mayContinue: boolean,
    turn: InstanceTurn,
  ): Promise<boolean> {
    const { campaign, contact } = send;
    this.metrics.observeDispatchLag(campaign.sendLagSeconds ?? 0);
    const pauses = drawPauses(campaign);
    const triedAt = this.clock.now();
    const outcome = await this.sender.deliver(campaign, contact);
    if (pacesInstance(outcome)) {
      turn.pauseDraw = pauses.draw;
    }
    if (outcome.kind === 'throttled') {
      // Meta asked the number to slow down: nobody sends through it for a while.
      turn.restSeconds = THROTTLED_REST_SECONDS;
    }
    if (outcome.kind !== 'sent') {
      turn.sent += outcome.kind === 'uncertain' ? 1 : 0;
      await this.recorder.recordUnsent(campaign, contact, outcome, pauses);
      if (outcome.kind === 'disconnected') {
        const state = outcome.condition === 'not_paired' ? 'not_paired' : 'close';
        await this.noteInstanceState(campaign, state, triedAt);
      }
      return false;
    }
    turn.sent += 1;
    const { goOn, instanceReleased } = await this.recorder.recordDelivered(
      campaign,
      contact,
      outcome,
      pauses,
      {
        mayContinue: mayContinue && !this.stopping && this.liveness.holdsLock,
        messages: turn.sent,
      },
    );
    turn.released = instanceReleased;
    if (campaign.disconnectedSince || isFirstSend(campaign)) {
      // Once per campaign and after each disconnection, not per message, and after the
      // delivery is recorded: the configuration shows the instance open again.
      await this.noteInstanceState(campaign, 'open', triedAt);
    }
    return goOn;
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
        { campaignId: campaign.id, err: error instanceof Error ? error.message : String(error) },
        'Instance state not recorded on its configuration',
      );
    }
  }

  /**
   * A lease taken from a dead holder: its interrupted sends become UNCERTAIN first, counted
   * once the transaction committed.
   */
  private async takeOver(campaignId: number): Promise<void> {
    const interrupted = await this.unitOfWork.run(async (tx) => {
      const campaign = await this.claims.lockCampaign(tx, campaignId);
      return campaign?.lockedBy === this.workerId ? this.doubtInterruptedSends(tx, campaign) : 0;
    });
    this.metrics.countMessages('uncertain', 'interrupted', interrupted);
  }

  /**
   * Contacts a dead worker left SENDING may have been sent: they are reconciled, never sent
   * again, and count as served for an automation's de-duplication. Answers how many.
   */
  private async doubtInterruptedSends(
    tx: Transaction,
    campaign: DispatchCampaign,
  ): Promise<number> {
    const interrupted = await this.claims.doubtInterruptedSends(
      tx,
      campaign.id,
      this.config.reconcileDelaysMs[0],
    );
    if (interrupted.length > 0) {
      this.logger.warn(
        { campaignId: campaign.id, interrupted: interrupted.length },
        'Contacts left SENDING by another worker will be reconciled with the gateway',
      );
    }
    for (const contact of interrupted) {
      await this.lifecycle.contactSent(tx, campaign, contact);
    }
    return interrupted.length;
  }

  /**
   * The common case in one committed statement; the rest (campaign no longer ACTIVE, company
   * deactivated, nothing ready) goes through beginSend's transaction, which handles it.
   */
  private async beginLeasedSend(campaignId: number): Promise<BegunSend | null> {
    const { campaign, contact } = await this.claims.beginLeasedSend(
      campaignId,
      this.workerId,
      this.config.dispatchLeaseSeconds,
    );
    if (!campaign || campaign.lockedBy !== this.workerId) {
      return null;
    }
    return contact ? { campaign, contact } : this.beginSend(campaignId);
  }

  /** Begins a send under the campaign's row lock, or settles why none may begin. */
  private beginSend(campaignId: number): Promise<BegunSend | null> {
    return this.unitOfWork.run(async (tx) => {
      const campaign = await this.claims.lockCampaign(tx, campaignId);
      if (!campaign || campaign.lockedBy !== this.workerId) {
        return null;
      }
      if (campaign.status !== 'ACTIVE') {
        await this.leases.release(tx, campaignId, this.workerId);
        return null;
      }
      if (!campaign.companyActive) {
        await this.transitions.pause(tx, campaign, COMPANY_INACTIVE_REASON, { notify: false });
        return null;
      }
      const contact = await this.claims.takeNextContact(tx, campaignId);
      if (contact) {
        return { campaign, contact };
      }
      await this.settleWithoutContact(tx, campaign);
      return null;
    });
  }

  /**
   * No contact is ready: look again at the next retry or reconciliation, or when the instance's
   * reach-out lock ends (the contacts left are cold), or complete.
   */
  private async settleWithoutContact(tx: Transaction, campaign: DispatchCampaign): Promise<void> {
    const lookAt = await this.claims.nextLookAt(tx, campaign.id);
    if (lookAt) {
      await this.leases.release(tx, campaign.id, this.workerId, lookAt.at, lookAt.waitingReason);
    } else if (!(await this.transitions.complete(tx, campaign))) {
      await this.leases.release(tx, campaign.id, this.workerId);
    }
  }
}
