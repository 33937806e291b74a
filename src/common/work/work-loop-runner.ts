import type { AppConfig } from '../../config/app-config.service';
import type { PgNotifications } from './pg-notifications';
import type { WorkLoop } from './work-loop';

/** A NOTIFY channel that announces new work, so that the loop need not wait for its next poll. */
export interface WakeOnNotify {
  notifications: Pick<PgNotifications, 'subscribe'>;
  channel: string;
  /** Runs on each notification; the loop's wake() unless the worker needs more. */
  onNotify?: () => void;
}

/**
 * The start and stop that every background worker shares. The loop runs only on an instance
 * that runs workers (ROLE all or worker); it listens on its channel before its first step, so
 * work announced once start() has returned is never left to the poll; stop() waits for the
 * step in progress.
 */
export class WorkLoopRunner {
  constructor(
    private readonly loop: WorkLoop,
    private readonly config: Pick<AppConfig, 'runsWorkers'>,
    private readonly wakeOn?: WakeOnNotify,
  ) {}

  /** Answers whether the loop was started: false on an instance that serves HTTP only. */
  async start(): Promise<boolean> {
    if (!this.config.runsWorkers) {
      return false;
    }
    if (this.wakeOn) {
      await this.wakeOn.notifications.subscribe(
        this.wakeOn.channel,
        this.wakeOn.onNotify ?? (() => this.loop.wake()),
      );
    }
    this.loop.start();
    return true;
  }

  /** Stops the loop (harmless when it never started) once the step in progress has ended. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
