import { WorkLoop } from './work-loop';
import { WorkLoopRunner } from './work-loop-runner';

/** Stands in for PgNotifications: remembers the listener of each channel, in order. */
class FakeNotifications {
  readonly events: string[] = [];
  readonly listeners = new Map<string, (payload: string) => void>();

  subscribe(channel: string, listener: (payload: string) => void): Promise<void> {
    this.events.push(`subscribe ${channel}`);
    this.listeners.set(channel, listener);
    return Promise.resolve();
  }

  notify(channel: string): void {
    this.listeners.get(channel)?.('');
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const worker = { runsWorkers: true };
const apiOnly = { runsWorkers: false };

describe('WorkLoopRunner', () => {
  let steps: number;
  let notifications: FakeNotifications;
  let loop: WorkLoop;

  beforeEach(() => {
    steps = 0;
    notifications = new FakeNotifications();
    loop = new WorkLoop(
      'test',
      () => {
        steps += 1;
        notifications.events.push('step');
        return Promise.resolve(null);
      },
      { idleMs: 60_000 },
    );
  });

  it('neither listens nor runs on an instance that serves HTTP only', async () => {
    const runner = new WorkLoopRunner(loop, apiOnly, { notifications, channel: 'jobs' });
    await expect(runner.start()).resolves.toBe(false);
    await pause(50);
    await runner.stop();
    expect(notifications.events).toEqual([]);
    expect(steps).toBe(0);
  });

  it('listens on its channel before the first step, and a notification wakes the sleeping loop', async () => {
    const runner = new WorkLoopRunner(loop, worker, { notifications, channel: 'jobs' });
    await expect(runner.start()).resolves.toBe(true);
    await pause(50);
    expect(notifications.events).toEqual(['subscribe jobs', 'step']);
    notifications.notify('jobs');
    await pause(50);
    await runner.stop();
    expect(steps).toBe(2);
  });

  it("hands notifications to the worker's own listener when it gives one", async () => {
    let heard = 0;
    const runner = new WorkLoopRunner(loop, worker, {
      notifications,
      channel: 'jobs',
      onNotify: () => (heard += 1),
    });
    await runner.start();
    await pause(50);
    notifications.notify('jobs');
    await pause(50);
    await runner.stop();
    expect(heard).toBe(1);
    // The worker's listener did not wake the loop, so it slept on.
    expect(steps).toBe(1);
  });

  it('runs a loop that has no channel, woken only by its poll', async () => {
    const runner = new WorkLoopRunner(loop, worker);
    await expect(runner.start()).resolves.toBe(true);
    await pause(50);
    await runner.stop();
    expect(notifications.events).toEqual(['step']);
  });

  it('stops only once the step in progress has ended, and runs no step after it', async () => {
    let finishStep: () => void = () => undefined;
    let ended = false;
    let calls = 0;
    const slow = new WorkLoop(
      'slow',
      async () => {
        calls += 1;
        await new Promise<void>((resolve) => (finishStep = resolve));
        ended = true;
        return 0;
      },
      { idleMs: 60_000 },
    );
    const runner = new WorkLoopRunner(slow, worker, { notifications, channel: 'jobs' });
    await runner.start();
    await pause(20);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await pause(50);
    expect(stopped).toBe(false);
    finishStep();
    await stopping;
    expect(ended).toBe(true);
    expect(calls).toBe(1);
  });
});
