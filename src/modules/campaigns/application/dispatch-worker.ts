import { Injectable } from '@nestjs/common';
import { HealthRegistry } from '../../../common/health/health-registry';
import { Metrics } from '../../../common/metrics/metrics';
import { Clock } from '../../../common/time/clock';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { AppConfig } from '../../../config/app-config.service';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import { InstancePacing } from '../../gateway/application/ports/instance-pacing';
import { startedEvent } from '../domain/campaign-events';
import { isPoolSender } from '../domain/sender-pool';
import { DISPATCH_CHANNEL } from './ports/dispatch-channel';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { DispatchClaimRepository } from '../infrastructure/dispatch-claim.repository';
import { DispatchLeaseRepository } from '../infrastructure/dispatch-lease.repository';
import { DispatchMonitoringRepository } from '../infrastructure/dispatch-monitoring.repository';
import { CampaignDispatcher } from './campaign-dispatcher';

/** Campaigns one worker sends to at the same time (each one message at a time). */
export const MAX_CAMPAIGNS_IN_FLIGHT = 128;
const IDLE_MS = 1_000;
const SCHEDULED_CHECK_INTERVAL_MS = 1_000;
const LIVENESS_SWEEP_INTERVAL_MS = 1_000;
/**
 * How long after a turn ends the loop claims again (see claimSoon), and the shortest wait
 * between two claims that took everything due: instances that become due together are claimed
 * together, in one statement, instead of one claim each.
 */
const CLAIM_AFTER_TURNS_MS = 20;

/**
 * The engine's loop: starts scheduled campaigns whose time came, claims due ACTIVE campaigns
 * and sends one message of each, concurrently. Wakes at once on NOTIFY (campaign created or
 * resumed on any instance), otherwise sleeps until the next campaign is due.
 */
@Injectable()
export class DispatchWorker extends BackgroundWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private lastScheduledCheck = 0;
  private lastLivenessSweep = 0;
  private claimTimer?: NodeJS.Timeout;

  constructor(
    private readonly claims: DispatchClaimRepository,
    private readonly leases: DispatchLeaseRepository,
    private readonly monitoring: DispatchMonitoringRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly dispatcher: CampaignDispatcher,
    private readonly outbox: OutboxWriter,
    private readonly health: HealthRegistry,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly liveness: WorkerLiveness,
    private readonly metrics: Metrics,
    private readonly pacing: InstancePacing,
    context: WorkerContext,
  ) {
    super(context, {
      name: 'campaign-dispatch',
      idleMs: IDLE_MS,
      wakeOn: DISPATCH_CHANNEL,
      queue: { name: 'campaigns', countDue: (cap) => monitoring.countDue(cap) },
      holdsLiveness: true,
    });
    this.health.register('queue', () => this.healthProbe());
    this.metrics.reportCampaignsInFlight(() => this.inFlight.size);
  }

  protected override onStarted(): void {
    this.logger.log({ workerId: this.dispatcher.workerId }, 'Campaign dispatch started');
  }

  /** A campaign sending back to back is handed back after its current message. */
  protected override stopClaiming(): void {
    this.dispatcher.stop();
  }

  /**
   * The sends in flight record their outcomes and give their leases back, so that another
   * worker goes on at once instead of doubting a contact left SENDING.
   */
  protected override async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight.values()]);
  }

  protected async step(): Promise<number | null> {
    if (!this.liveness.holdsLock) {
      // Our liveness lock is gone: other workers may be taking our campaigns over right now.
      return IDLE_MS;
    }
    const started = await this.startScheduled();
    await this.expireLeasesOfGoneWorkers();
    const room = MAX_CAMPAIGNS_IN_FLIGHT - this.inFlight.size;
    const claims = await this.claims.claimDue(
      this.dispatcher.workerId,
      room,
      this.config.dispatchLeaseSeconds,
      [...this.inFlight.keys()],
    );
    for (const claim of claims) {
      const { id } = claim;
      const work: Promise<void> = this.dispatcher
        .sendNext(claim)
        .catch((error: unknown) =>
          this.logger.error({ campaignId: id, err: error }, 'Dispatch step failed'),
        )
        .finally(() => {
          // The campaign may already be claimed again under a new entry; keep that one.
          if (this.inFlight.get(id) === work) {
            this.inFlight.delete(id);
          }
          this.claimSoon();
        });
      this.inFlight.set(id, work);
    }
    if ((room > 0 && claims.length === room) || started > 0) {
      return 0;
    }
    const next = await this.monitoring.msUntilNextDue();
    return next === null ? null : Math.max(next, CLAIM_AFTER_TURNS_MS);
  }

  /**
   * A finished turn frees a place in flight and, after its pause, its instance: the loop claims
   * again shortly after, once for the turns that end together rather than once for each.
   */
  private claimSoon(): void {
    this.claimTimer ??= setTimeout(() => {
      this.claimTimer = undefined;
      this.loop.wake();
    }, CLAIM_AFTER_TURNS_MS).unref();
  }

  /** Once a second: a dead worker's campaigns are taken over within about a second. */
  private async expireLeasesOfGoneWorkers(): Promise<void> {
    const now = Date.now();
    if (now - this.lastLivenessSweep < LIVENESS_SWEEP_INTERVAL_MS) {
      return;
    }
    this.lastLivenessSweep = now;
    const expired = await this.leases.expireLeasesOfGoneWorkers(this.dispatcher.workerId);
    await this.pacing.releaseHoldsOfGoneWorkers();
    if (expired > 0) {
      this.logger.warn({ campaigns: expired }, 'Taking over the campaigns of a worker that died');
    }
  }

  /** Scheduled starts have minute precision: checking once a second keeps busy loops cheap. */
  private async startScheduled(): Promise<number> {
    const now = Date.now();
    if (now - this.lastScheduledCheck < SCHEDULED_CHECK_INTERVAL_MS) {
      return 0;
    }
    this.lastScheduledCheck = now;
    return this.unitOfWork.run(async (tx) => {
      const campaigns = await this.claims.startDueScheduled(tx, 100);
      const now = this.clock.now();
      await this.outbox.append(
        tx,
        campaigns
          .filter((c) => !isPoolSender(c))
          .map((c) => startedEvent({ ...c, startedAt: now }, c, now)),
      );
      return campaigns.length;
    });
  }

  private async healthProbe(): Promise<{
    status: 'UP' | 'DOWN';
    details: Record<string, unknown>;
  }> {
    const backlog = await this.monitoring.backlog();
    const lastTick = this.loop.lastTickAt;
    const stalled =
      this.config.runsWorkers &&
      (!lastTick || this.clock.now().getTime() - lastTick.getTime() > 60_000);
    return {
      status: stalled ? 'DOWN' : 'UP',
      details: {
        broker: 'PostgreSQL',
        role: this.config.role,
        dispatcher: this.config.runsWorkers ? 'running' : 'disabled',
        lastTickAt: lastTick?.toISOString() ?? null,
        campaignsInFlight: this.inFlight.size,
        dueCampaigns: backlog.due,
        lagSeconds: backlog.lagSeconds,
      },
    };
  }
}
