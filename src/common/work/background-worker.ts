import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
} from '@nestjs/common';
import { AppConfig } from '../../config/app-config.service';
import type { WorkQueue } from '../metrics/metric-labels';
import { Metrics, QUEUE_DEPTH_CAP } from '../metrics/metrics';
import { PgNotifications } from './pg-notifications';
import { WorkLoop } from './work-loop';
import { WorkerLiveness } from './worker-liveness';

/** What a worker declares about its loop; BackgroundWorker does the rest. */
export interface WorkerSpec {
  /** The loop's name in its logs. */
  name: string;
  /** The longest sleep with nothing due: the poll that catches a missed wake-up. */
  idleMs: number;
  /** The pause after a failed step (WorkLoop's default when not given). */
  errorBackoffMs?: number;
  /** The NOTIFY channel that announces new work. */
  wakeOn?: string;
  /** The queue whose depth the metrics read at each scrape, on every instance. */
  queue?: { name: WorkQueue; countDue: (cap: number) => Promise<number> };
  /** The worker leases work under this process's liveness lock (WorkerLiveness). */
  holdsLiveness?: boolean;
  /** A step may run for minutes (a whole import): it is waited for last (see BackgroundWorker). */
  drainsLast?: boolean;
}

/** What a worker's lifecycle uses of the process: WorkerContext, or fakes in specs. */
export interface WorkerEnvironment {
  config: Pick<AppConfig, 'runsWorkers'>;
  notifications: Pick<PgNotifications, 'subscribe'>;
  metrics: Pick<Metrics, 'reportQueueDepth'>;
  liveness: Pick<WorkerLiveness, 'start'>;
}

/** The process's services that every BackgroundWorker is given, as one constructor parameter. */
@Injectable()
export class WorkerContext implements WorkerEnvironment {
  constructor(
    readonly config: AppConfig,
    readonly notifications: PgNotifications,
    readonly metrics: Metrics,
    readonly liveness: WorkerLiveness,
  ) {}
}

/**
 * The lifecycle every background worker shares: a subclass declares its loop (WorkerSpec) and
 * what one step does, and this class starts, wakes and stops it.
 *
 * Start (onApplicationBootstrap): the queue's depth is reported on every instance, but the
 * loop runs only where workers run (ROLE worker or all). Before its first step it holds the
 * liveness lock (when declared), so that no other worker takes it for dead, and listens on its
 * channel, so that work announced once the app has started is never left to the poll.
 *
 * Stop (app.close(), see src/graceful-stop.ts). Nest runs each hook across every module before
 * the next one, so these are the phases of the whole process:
 * 1. onModuleDestroy: every loop stops claiming, without waiting, so that no loop claims while
 *    another drains; stopClaiming() stops what the worker runs besides its steps.
 * 2. beforeApplicationShutdown: the step in progress ends and drain() waits for the work it
 *    handed off, while the database and the liveness lock are still there, so that what is in
 *    hand is recorded or given back instead of being left to a lease.
 * 3. The HTTP server closes, once its requests have ended.
 * 4. onApplicationShutdown: the drainsLast workers are waited for, after everything else has
 *    drained, so that a long step never takes the grace period from the others; the database
 *    connections and the liveness lock close after them (their modules are global: last).
 * A process that never gets there (kill -9, grace period over) leaves its leases to expire, or
 * to go with its liveness lock, and other workers take its work over as after a crash: the
 * protocol makes the hand-over prompt, the leases make it safe.
 */
export abstract class BackgroundWorker
  implements
    OnApplicationBootstrap,
    OnModuleDestroy,
    BeforeApplicationShutdown,
    OnApplicationShutdown
{
  protected readonly loop: WorkLoop;
  /** Named after the worker's class, as each worker's own logger was. */
  protected readonly logger = new Logger(this.constructor.name);
  private finishing: Promise<void> | undefined;

  protected constructor(
    private readonly environment: WorkerEnvironment,
    private readonly declared: WorkerSpec,
  ) {
    this.loop = new WorkLoop(declared.name, () => this.step(), declared);
  }

  /**
   * One round of the worker's work. Answers how long until it has work again: 0 to go on at
   * once, null for nothing known (the loop sleeps idleMs, unless woken).
   */
  protected abstract step(): Promise<number | null>;

  /** Runs once the loop has started, on the instances that run workers. */
  protected onStarted(): void {
    // Nothing by default.
  }

  /** Phase 1: stops what the worker runs besides its steps. */
  protected stopClaiming(): void {
    // Nothing by default.
  }

  /** Phase 2 (4 when drainsLast): waits for the work the steps handed off, after the last step. */
  protected drain(): Promise<void> {
    return Promise.resolve();
  }

  /** Ends the loop's sleep: work was created in this process. */
  wake(): void {
    this.loop.wake();
  }

  async onApplicationBootstrap(): Promise<void> {
    const { queue, holdsLiveness, wakeOn } = this.declared;
    if (queue) {
      this.environment.metrics.reportQueueDepth(queue.name, () => queue.countDue(QUEUE_DEPTH_CAP));
    }
    if (!this.environment.config.runsWorkers) {
      return;
    }
    if (holdsLiveness) {
      await this.environment.liveness.start();
    }
    if (wakeOn) {
      await this.environment.notifications.subscribe(wakeOn, () => this.loop.wake());
    }
    this.loop.start();
    this.onStarted();
  }

  onModuleDestroy(): void {
    this.stopClaiming();
    void this.loop.stop();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.declared.drainsLast) {
      await this.finish();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.finish();
  }

  /** The step in progress, then drain(): once, whichever phase asks first. */
  private finish(): Promise<void> {
    this.finishing ??= this.loop.stop().then(() => this.drain());
    return this.finishing;
  }
}
