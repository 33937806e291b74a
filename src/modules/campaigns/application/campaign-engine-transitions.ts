import { Injectable, Logger } from '@nestjs/common';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { Clock } from '../../../common/time/clock';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import {
  CampaignEvent,
  completedEvent,
  failedEvent,
  pausedEvent,
  progressEvents,
} from '../domain/campaign-events';
import {
  CampaignNotice,
  completionNotice,
  failedNotice,
  NoticeSubject,
  pausedNotice,
} from '../domain/campaign-notices';
import { allProcessed, CampaignCounts, progressStepOf } from '../domain/campaign-stats';
import type { CampaignCounters, DispatchCampaign } from '../domain/dispatch-records';
import { DispatchClaimRepository } from '../infrastructure/dispatch-claim.repository';
import { DispatchLeaseRepository } from '../infrastructure/dispatch-lease.repository';
import {
  DispatchOutcomeRepository,
  EngineStop,
} from '../infrastructure/dispatch-outcome.repository';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';
import { SenderFailoverRepository } from '../infrastructure/sender-failover.repository';
import { isPool, isPoolSender, type StopScope } from '../domain/sender-pool';
import { CampaignLifecycle } from './campaign-lifecycle';

/** What differs between the engine failing a campaign and pausing it; the rest is one path. */
const STOPS: Record<
  EngineStop,
  {
    log: string;
    event: typeof failedEvent;
    notice(campaign: NoticeSubject, counts: CampaignCounts, reason: string): CampaignNotice;
    /** The campaign is over: the other modules' listeners hear of it. */
    ends: boolean;
  }
> = {
  fail: {
    log: 'Campaign failed',
    event: failedEvent,
    notice: (campaign, _counts, reason) => failedNotice(campaign, reason),
    ends: true,
  },
  pause: {
    log: 'Campaign paused by the engine',
    event: pausedEvent,
    notice: pausedNotice,
    ends: false,
  },
};

/**
 * The engine's campaign-level moves inside a send's transaction: progress events, completion,
 * failing or pausing with its event and notice, and the other modules told when it ends.
 */
@Injectable()
export class CampaignEngineTransitions {
  private readonly logger = new Logger(CampaignEngineTransitions.name);

  constructor(
    private readonly claims: DispatchClaimRepository,
    private readonly outcomes: DispatchOutcomeRepository,
    private readonly leases: DispatchLeaseRepository,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
    private readonly lifecycle: CampaignLifecycle,
    private readonly clock: Clock,
    private readonly liveness: WorkerLiveness,
    private readonly unitOfWork: UnitOfWork,
    private readonly pools: SenderPoolsRepository,
    private readonly failover: SenderFailoverRepository,
  ) {}

  /**
   * After a contact was counted: one progress event per 10 % step crossed, and completion
   * once every contact has its outcome.
   */
  async progress(
    tx: Transaction,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
  ): Promise<void> {
    const step = progressStepOf(counters);
    const events = progressEvents(
      campaign,
      counters,
      counters.progressStep,
      step,
      this.clock.now(),
    );
    if (step > counters.progressStep) {
      await this.outcomes.setProgressStep(tx, campaign.id, step);
    }
    await this.appendEvents(tx, campaign, events);
    if (allProcessed(counters) && counters.status === 'ACTIVE') {
      await this.complete(tx, campaign);
    }
  }

  /**
   * Completes the campaign when no contact is unfinished, with its last progress events, its
   * completed event and notice; answers whether it did.
   */
  async complete(tx: Transaction, campaign: DispatchCampaign): Promise<boolean> {
    const counters = isPool(campaign)
      ? await this.pools.complete(tx, campaign.id)
      : await this.outcomes.complete(tx, campaign.id);
    if (!counters) {
      return false;
    }
    if (isPoolSender(campaign)) {
      // The pool completes, with its events and notice, once every sender has (SenderPools).
      await this.pools.announce(tx);
      return true;
    }
    const now = this.clock.now();
    const step = progressStepOf(counters);
    await this.appendEvents(tx, campaign, [
      ...progressEvents(campaign, counters, counters.progressStep, step, now),
      completedEvent(campaign, counters, now),
    ]);
    await this.outcomes.setProgressStep(tx, campaign.id, step);
    await this.notify(tx, campaign, completionNotice(campaign, counters));
    await this.lifecycle.campaignEnded(tx, campaign, counters, null);
    return true;
  }

  /** The campaign fails for `reason` (see StopOptions). */
  fail(
    tx: Transaction,
    campaign: DispatchCampaign,
    reason: string,
    options: StopOptions = {},
  ): Promise<void> {
    return this.stop(tx, campaign, 'fail', reason, options);
  }

  /**
   * The engine's own pause: a person looks and resumes (see StopOptions). An automation's run
   * cannot be resumed by anyone, so it fails with the reason instead and the automation runs
   * again at its next occurrence.
   */
  pause(
    tx: Transaction,
    campaign: DispatchCampaign,
    reason: string,
    options: StopOptions = {},
  ): Promise<void> {
    const how = campaign.automationRunId === null ? 'pause' : 'fail';
    return this.stop(tx, campaign, how, reason, options);
  }

  /**
   * Pauses a campaign for a reason found outside a send (its instance logged out of
   * WhatsApp), with the same event as a send that found it. No notice: it would go through
   * the instance that cannot send.
   */
  async pauseNow(campaignId: number, reason: string, scope: StopScope): Promise<void> {
    await this.unitOfWork.run(async (tx) => {
      const campaign = await this.claims.lockCampaign(tx, campaignId);
      if (campaign) {
        await this.pause(tx, campaign, reason, { notify: false, scope });
      }
    });
  }

  /** A notice to the campaign's notification phone, when it has one. */
  async notify(tx: Transaction, campaign: DispatchCampaign, notice: CampaignNotice): Promise<void> {
    // A pool's sender is not a campaign of its own to anyone: the pool gives the notices.
    if (!campaign.notificationPhone || isPoolSender(campaign)) {
      return;
    }
    await this.notices.enqueue(tx, {
      companyId: campaign.companyId,
      gatewayConfigId: campaign.gatewayConfigId,
      phoneNumber: campaign.notificationPhone,
      ...notice,
    });
  }

  /** Fail and pause alike: the move, or the lease back when the move no longer applies. */
  private async stop(
    tx: Transaction,
    campaign: DispatchCampaign,
    how: EngineStop,
    reason: string,
    { notify = true, scope = 'campaign' }: StopOptions,
  ): Promise<void> {
    // A pool's sender only pauses, silently: the pool decides what follows (SenderPoolsWorker).
    const counters = isPool(campaign)
      ? await this.pools.stop(tx, campaign.id, how, reason)
      : await this.outcomes.stop(tx, campaign.id, isPoolSender(campaign) ? 'pause' : how, reason);
    if (!counters) {
      await this.leases.release(tx, campaign.id, this.liveness.workerId);
      return;
    }
    if (isPoolSender(campaign)) {
      this.logger.warn({ campaignId: campaign.id, poolId: campaign.poolId, reason }, stopLog(how));
      if (scope === 'sender') {
        await this.failover.markLost(tx, campaign.id, reason, 'GATEWAY');
      }
      await this.pools.announce(tx);
      return;
    }
    const stop = STOPS[how];
    this.logger.warn({ campaignId: campaign.id, reason }, stop.log);
    await this.appendEvents(tx, campaign, [
      stop.event(campaign, counters, this.clock.now(), reason),
    ]);
    if (notify) {
      await this.notify(tx, campaign, stop.notice(campaign, counters, reason));
    }
    if (stop.ends) {
      await this.lifecycle.campaignEnded(tx, campaign, counters, reason);
    }
  }

  /**
   * Webhook events are about the company's campaigns: automation runs have their own records,
   * and a pool's events are the pool's, written from all its senders' counts (SenderPools).
   */
  private async appendEvents(
    tx: Transaction,
    campaign: DispatchCampaign,
    events: CampaignEvent[],
  ): Promise<void> {
    if (campaign.automationRunId === null && !isPoolSender(campaign)) {
      await this.outbox.append(tx, events);
    }
  }
}

/**
 * `notify`: false when the notice cannot be sent (the company may not send, or it would go
 * through the instance that cannot). `scope`: whose the stop is (domain/sender-pool.ts
 * StopScope); 'campaign' when not given.
 */
export interface StopOptions {
  notify?: boolean;
  scope?: StopScope;
}

function stopLog(how: EngineStop): string {
  return `${STOPS[how].log} (a sender of a pool: paused, the pool decides)`;
}
