import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { Metrics } from '../../../common/metrics/metrics';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { AppConfig } from '../../../config/app-config.service';
import type { ClaimedCampaign, ContactToSend, DispatchCampaign } from '../domain/dispatch-records';
import { endsThroughputTurn, nextSlot, slotOffsetMs, takeSize } from '../domain/throughput-turns';
import { DispatchBatchRepository } from '../infrastructure/dispatch-batch.repository';
import { DispatchLeaseRepository } from '../infrastructure/dispatch-lease.repository';
import { CampaignMessageSender } from './campaign-message.sender';
import type { InstanceTurn } from './instance-turn';
import {
  AnsweredSend,
  ThroughputOutcomesRecorder,
  ThroughputTurnState,
} from './throughput-outcomes.recorder';

/** How a turn at the throughput ended. */
export interface ThroughputTurnEnd {
  /** No contact was ready: the dispatcher settles the campaign (its next look, or completion). */
  drained: boolean;
}

/** A turn under way: its start, its messages so far, its batches' recording, in order. */
interface RunningTurn {
  claim: ClaimedCampaign;
  perSecond: number;
  startedAt: number;
  sent: number;
  /** The last contact the turn took (ids are taken in order): the next take reads past it. */
  lastTakenId: string | null;
  state: ThroughputTurnState;
  recording: Promise<void>;
  failure: Error | null;
}

/**
 * A turn at the number's throughput (domain/throughput-turns.ts): a second's worth of contacts
 * taken in one statement (marked SENDING and committed before any call: at most once), each
 * sent at its slot, evenly spaced at the number's rate, without waiting for the answers before
 * it; each batch's answers recorded together (ThroughputOutcomesRecorder), one batch after the
 * other, while the next batch goes out. A send whose slot comes after the turn ended (an
 * outcome paused the campaign, the lease was lost) is not made: its contact goes back.
 */
@Injectable()
export class ThroughputTurns {
  constructor(
    private readonly batches: DispatchBatchRepository,
    private readonly sender: CampaignMessageSender,
    private readonly recorder: ThroughputOutcomesRecorder,
    private readonly leases: DispatchLeaseRepository,
    private readonly config: AppConfig,
    private readonly liveness: WorkerLiveness,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Up to `limit` messages of the leased campaign at `perSecond`; `turn` counts them for the
   * instance. The lease goes back at the end unless an outcome already gave it back.
   */
  async send(
    claim: ClaimedCampaign,
    perSecond: number,
    limit: number,
    turn: InstanceTurn,
    stopping: () => boolean,
  ): Promise<ThroughputTurnEnd> {
    const running: RunningTurn = {
      claim,
      perSecond,
      startedAt: Date.now(),
      sent: 0,
      lastTakenId: null,
      state: { sending: true, leaseHeld: true },
      recording: Promise.resolve(),
      failure: null,
    };
    let drained = false;
    while (
      running.sent < limit &&
      isSending(running.state) &&
      !stopping() &&
      this.liveness.holdsLock
    ) {
      const { campaign, contacts } = await this.nextBatch(running, limit);
      if (!campaign) {
        running.state.leaseHeld = false;
        break;
      }
      if (contacts.length === 0) {
        drained = true;
        break;
      }
      running.lastTakenId = contacts[contacts.length - 1].id;
      await this.sendBatch(running, campaign, contacts, turn);
      if (running.sent === 1) {
        // The turn's first message goes alone: its answer proves the number, its account and
        // the template can send, before a second's worth of messages follows it.
        await running.recording;
        running.startedAt = Date.now() - slotOffsetMs(1, perSecond);
      }
    }
    await running.recording;
    if (running.failure) {
      throw running.failure;
    }
    if (running.state.leaseHeld && !drained) {
      await this.leases.release(null, claim.id, this.liveness.workerId);
    }
    return { drained: drained && isSending(running.state) };
  }

  /** The turn's first message alone (the one the claim began, if any), then a second's worth. */
  private nextBatch(
    running: RunningTurn,
    limit: number,
  ): Promise<{ campaign: DispatchCampaign | null; contacts: ContactToSend[] }> {
    const { claim } = running;
    if (running.sent === 0 && claim.firstSend) {
      return Promise.resolve({
        campaign: claim.firstSend.campaign,
        contacts: [claim.firstSend.contact],
      });
    }
    const size = running.sent === 0 ? 1 : takeSize(running.perSecond, limit - running.sent);
    return this.batches.takeContacts(
      claim.id,
      this.liveness.workerId,
      this.config.dispatchLeaseSeconds,
      { size, afterId: running.lastTakenId },
    );
  }

  /**
   * Each contact at its slot, without waiting for the answers before it; the batch recorded
   * once all answered, after the batches before it. A contact whose slot comes after an answer
   * ended the turn is not sent (its outcome null: it goes back).
   */
  private async sendBatch(
    running: RunningTurn,
    campaign: DispatchCampaign,
    batch: ContactToSend[],
    turn: InstanceTurn,
  ): Promise<void> {
    // Once a batch: how late the campaign was read behind its due time, as for one message.
    this.metrics.observeDispatchLag(campaign.sendLagSeconds ?? 0);
    const answers: Array<Promise<AnsweredSend>> = [];
    for (const contact of batch) {
      await this.waitForSlot(running);
      answers.push(
        isSending(running.state)
          ? this.deliver(campaign, contact, running.state)
          : Promise.resolve({ contact, outcome: null }),
      );
    }
    const answered = Promise.all(answers);
    // Handled by the chain below, which may reach this batch only after it settled.
    answered.catch(() => undefined);
    running.recording = running.recording
      .then(async () => this.recorder.record(campaign, await answered, turn, running.state))
      .catch((error: unknown) => {
        // Contacts left SENDING are doubted by the next lease holder, never sent again.
        running.state.sending = false;
        running.failure ??= error instanceof Error ? error : new Error(String(error));
      });
  }

  private async waitForSlot(running: RunningTurn): Promise<void> {
    const slot = nextSlot(running.startedAt, running.sent, running.perSecond, Date.now());
    running.startedAt = slot.startedAt;
    running.sent += 1;
    await sleepUntil(slot.at);
  }

  private async deliver(
    campaign: DispatchCampaign,
    contact: ContactToSend,
    state: ThroughputTurnState,
  ): Promise<AnsweredSend> {
    const outcome = await this.sender.deliver(campaign, contact);
    if (endsThroughputTurn(outcome)) {
      state.sending = false;
    }
    return { contact, outcome };
  }
}

function isSending(state: ThroughputTurnState): boolean {
  return state.sending && state.leaseHeld;
}

async function sleepUntil(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) {
    await sleep(wait);
  }
}
