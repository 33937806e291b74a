import { Injectable } from '@nestjs/common';
import { autoPauseOf } from '../../../common/messaging/auto-pause';
import { Metrics } from '../../../common/metrics/metrics';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { banSignalOf } from '../domain/ban-signals';
import { allProcessed, progressStepOf } from '../domain/campaign-stats';
import type {
  BatchDelivered,
  CampaignCounters,
  ContactToSend,
  DispatchCampaign,
} from '../domain/dispatch-records';
import {
  DeliveredOutcome,
  FailedOutcome,
  SendOutcome,
  sendSignalOf,
  UnsentOutcome,
} from '../domain/send-outcome';
import type { SendPauses } from '../domain/send-pauses';
import { THROTTLED_REST_SECONDS } from '../domain/throughput-turns';
import { watchedCountsOfFailure } from '../domain/watched-counts';
import { DispatchBatchRepository } from '../infrastructure/dispatch-batch.repository';
import { DispatchOutcomeRepository } from '../infrastructure/dispatch-outcome.repository';
import { CampaignEngineTransitions } from './campaign-engine-transitions';
import { CampaignLifecycle } from './campaign-lifecycle';
import type { InstanceTurn } from './instance-turn';
import { SendOutcomeRecorder } from './send-outcome.recorder';

/** A contact of the turn and what its send came to; null: its slot came after the turn ended. */
export interface AnsweredSend {
  contact: ContactToSend;
  outcome: SendOutcome | null;
}

/** Where a turn at the throughput stands: it sends while both hold. */
export interface ThroughputTurnState {
  /** No answer ended the turn (endsThroughputTurn), no ban signal paused the campaign. */
  sending: boolean;
  /** This worker still holds the campaign's lease: the campaign's own moves are its to write. */
  leaseHeld: boolean;
}

/** No pause follows a message of a turn at the throughput. */
const NO_PAUSES: SendPauses = { pauseSeconds: 0, draw: 0, longPauseSeconds: 0 };

type Delivered = AnsweredSend & { outcome: DeliveredOutcome };

/**
 * Stores what a batch of a turn at the throughput proved, in the order the engine's rules
 * need (docs/ARCHITECTURE.md, "Meta's limits"): the delivered in one statement; each failed
 * contact on its own, the turn going on (a person not on WhatsApp says nothing about the
 * number) unless its failures look like a ban signal; any other outcome through
 * SendOutcomeRecorder, as a one-at-a-time send would, which ends the turn (Meta's throttling
 * rests the whole number too).
 */
@Injectable()
export class ThroughputOutcomesRecorder {
  constructor(
    private readonly batches: DispatchBatchRepository,
    private readonly outcomes: DispatchOutcomeRepository,
    private readonly recorder: SendOutcomeRecorder,
    private readonly transitions: CampaignEngineTransitions,
    private readonly lifecycle: CampaignLifecycle,
    private readonly unitOfWork: UnitOfWork,
    private readonly liveness: WorkerLiveness,
    private readonly metrics: Metrics,
  ) {}

  async record(
    campaign: DispatchCampaign,
    answers: AnsweredSend[],
    turn: InstanceTurn,
    state: ThroughputTurnState,
  ): Promise<void> {
    const delivered = answers.filter(isDelivered);
    turn.sent += delivered.length + answers.filter((a) => a.outcome?.kind === 'uncertain').length;
    const notSent = answers.filter((a) => a.outcome === null).map((a) => a.contact.id);
    if (notSent.length > 0) {
      await this.batches.putBack(campaign.id, notSent);
    }
    if (delivered.length > 0) {
      await this.recordDelivered(campaign, delivered, state);
    }
    for (const { contact, outcome } of answers) {
      if (outcome?.kind === 'failed') {
        await this.recordFailed(campaign, contact, outcome, state);
      } else if (outcome && outcome.kind !== 'sent') {
        await this.recordEnding(campaign, contact, outcome, turn, state);
      }
    }
  }

  /** With the automation's sent-log in the same transaction when a listener follows the campaign. */
  private async recordDelivered(
    campaign: DispatchCampaign,
    delivered: Delivered[],
    state: ThroughputTurnState,
  ): Promise<void> {
    const rows = delivered.map(({ contact, outcome }) => ({
      contactId: contact.id,
      messageId: outcome.messageId,
      text: outcome.text,
    }));
    const workerId = this.liveness.workerId;
    let counters: BatchDelivered;
    if (this.lifecycle.followsContactsOf(campaign)) {
      counters = await this.unitOfWork.run(async (tx) => {
        const recorded = await this.batches.recordDelivered(tx, campaign.id, workerId, rows);
        for (const { contact } of delivered) {
          await this.lifecycle.contactSent(tx, campaign, contact);
        }
        return recorded;
      });
    } else {
      counters = await this.batches.recordDelivered(null, campaign.id, workerId, rows);
    }
    this.metrics.countMessages('sent', 'gateway', counters.contactsMoved);
    state.leaseHeld &&= counters.leaseHeld;
    await this.progress(campaign, counters, state);
  }

  /** The contact FAILED and counted; a ban signal pauses the campaign, which ends the turn. */
  private async recordFailed(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: FailedOutcome,
    state: ThroughputTurnState,
  ): Promise<void> {
    const thresholds = autoPauseOf(campaign.autoPause);
    const signal = sendSignalOf(outcome);
    const counters = await this.unitOfWork.run(async (tx) => {
      const failed = await this.outcomes.failContact(tx, campaign.id, contact.id, {
        reason: outcome.reason,
        kind: outcome.cause,
        counts: watchedCountsOfFailure(signal, campaign.watchedSends, thresholds.refusedSample),
      });
      const banSignal =
        state.leaseHeld && failed.contactMoved ? banSignalOf(failed, thresholds) : null;
      if (banSignal) {
        state.sending = false;
        state.leaseHeld = false;
        await this.transitions.pause(tx, campaign, banSignal);
      }
      return failed;
    });
    if (counters.contactMoved) {
      this.metrics.countMessages('failed', outcome.cause);
    }
    await this.progress(campaign, counters, state);
  }

  /** Throttling, an uncertain send, a held account, our own error: as a one-at-a-time send. */
  private async recordEnding(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    outcome: UnsentOutcome,
    turn: InstanceTurn,
    state: ThroughputTurnState,
  ): Promise<void> {
    state.sending = false;
    if (outcome.kind === 'throttled') {
      turn.restSeconds = THROTTLED_REST_SECONDS;
    }
    await this.recorder.recordUnsent(campaign, contact, outcome, NO_PAUSES);
    // It gave the lease back with the campaign's next send (or stopped the campaign).
    state.leaseHeld = false;
  }

  /** Progress events per 10 % crossed and completion, while the turn's lease holds. */
  private async progress(
    campaign: DispatchCampaign,
    counters: CampaignCounters,
    state: ThroughputTurnState,
  ): Promise<void> {
    const done = allProcessed(counters);
    if (state.leaseHeld && (done || progressStepOf(counters) > counters.progressStep)) {
      await this.unitOfWork.run((tx) => this.transitions.progress(tx, campaign, counters));
      // Completion gave the lease back.
      state.leaseHeld = !done;
    }
    state.sending &&= !done;
  }
}

function isDelivered(answer: AnsweredSend): answer is Delivered {
  return answer.outcome?.kind === 'sent';
}
