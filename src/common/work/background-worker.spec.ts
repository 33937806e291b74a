import { QUEUE_DEPTH_CAP } from '../metrics/metrics';
import { BackgroundWorker, WorkerEnvironment, WorkerSpec } from './background-worker';

/** The process as a worker sees it; `events` records what the worker did, in order. */
class FakeEnvironment implements WorkerEnvironment {
  readonly events: string[] = [];
  readonly listeners = new Map<string, (payload: string | null) => void>();
  readonly queueDepths = new Map<string, () => Promise<number>>();
  readonly config: { runsWorkers: boolean };

  readonly notifications = {
    subscribe: (channel: string, listener: (payload: string | null) => void): Promise<void> => {
      this.events.push(`subscribe ${channel}`);
      this.listeners.set(channel, listener);
      return Promise.resolve();
    },
  };

  readonly metrics = {
    reportQueueDepth: (queue: string, depth: () => Promise<number>): void => {
      this.queueDepths.set(queue, depth);
    },
  };

  readonly liveness = {
    start: (): Promise<void> => {
      this.events.push('liveness');
      return Promise.resolve();
    },
  };

  constructor(runsWorkers: boolean) {
    this.config = { runsWorkers };
  }

  notify(channel: string): void {
    this.listeners.get(channel)?.('');
  }
}

/** A worker whose step is `work`, recording its steps and lifecycle calls. */
class TestWorker extends BackgroundWorker {
  steps = 0;

  constructor(
    private readonly env: FakeEnvironment,
    spec: Partial<WorkerSpec> = {},
    private readonly work: () => Promise<number | null> = () => Promise.resolve(null),
  ) {
    super(env, { name: 'test', idleMs: 60_000, ...spec });
  }

  protected step(): Promise<number | null> {
    this.steps += 1;
    this.env.events.push('step');
    return this.work();
  }

  protected override onStarted(): void {
    this.env.events.push('started');
  }

  protected override stopClaiming(): void {
    this.env.events.push('stop claiming');
  }

  protected override drain(): Promise<void> {
    this.env.events.push('drain');
    return Promise.resolve();
  }
}

/** Lets every callback already due run: the loop's steps and its turns between them. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 10; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A step that runs until finish() is called. */
function heldStep(): { work: () => Promise<number | null>; finish: () => void } {
  let finish: () => void = () => undefined;
  return {
    work: () => new Promise<number | null>((resolve) => (finish = () => resolve(null))),
    finish: () => finish(),
  };
}

async function stopAll(worker: BackgroundWorker): Promise<void> {
  worker.onModuleDestroy();
  await worker.beforeApplicationShutdown();
  await worker.onApplicationShutdown();
}

describe('BackgroundWorker', () => {
  it('on an instance that serves HTTP only reports its queue, but neither listens nor runs', async () => {
    const env = new FakeEnvironment(false);
    const countDue = jest.fn((cap: number) => Promise.resolve(Math.min(cap, 7)));
    const worker = new TestWorker(env, {
      wakeOn: 'jobs',
      holdsLiveness: true,
      queue: { name: 'notices', countDue },
    });

    await worker.onApplicationBootstrap();
    await settle();

    expect(env.events).toEqual([]);
    expect(worker.steps).toBe(0);
    await expect(env.queueDepths.get('notices')?.()).resolves.toBe(7);
    expect(countDue).toHaveBeenCalledWith(QUEUE_DEPTH_CAP);
    await stopAll(worker);
  });

  it('holds the liveness lock and listens on its channel before the first step', async () => {
    const env = new FakeEnvironment(true);
    const worker = new TestWorker(env, { wakeOn: 'jobs', holdsLiveness: true });

    await worker.onApplicationBootstrap();
    await settle();

    expect(env.events.slice(0, 3)).toEqual(['liveness', 'subscribe jobs', 'step']);
    expect(env.events).toContain('started');
    await stopAll(worker);
  });

  it('sleeps when its step reports nothing to do, and wakes on a notification or on wake()', async () => {
    const env = new FakeEnvironment(true);
    const worker = new TestWorker(env, { wakeOn: 'jobs' });
    await worker.onApplicationBootstrap();
    await settle();
    expect(worker.steps).toBe(1);

    env.notify('jobs');
    await settle();
    expect(worker.steps).toBe(2);

    worker.wake();
    await settle();
    expect(worker.steps).toBe(3);
    await stopAll(worker);
  });

  it('runs a loop that has no channel, woken only by its poll', async () => {
    const env = new FakeEnvironment(true);
    const worker = new TestWorker(env);

    await worker.onApplicationBootstrap();
    await settle();

    expect(env.events.filter((event) => event.startsWith('subscribe'))).toEqual([]);
    expect(worker.steps).toBe(1);
    await stopAll(worker);
  });

  it('stops claiming at onModuleDestroy without waiting; beforeApplicationShutdown waits for the step in progress, then drains once', async () => {
    const env = new FakeEnvironment(true);
    const step = heldStep();
    const worker = new TestWorker(env, {}, step.work);
    await worker.onApplicationBootstrap();
    await settle();

    worker.onModuleDestroy();
    expect(env.events).toContain('stop claiming');
    let drained = false;
    const draining = worker.beforeApplicationShutdown().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    expect(env.events).not.toContain('drain');

    step.finish();
    await draining;
    await worker.onApplicationShutdown();
    expect(env.events.filter((event) => event === 'drain')).toHaveLength(1);
    expect(env.events.indexOf('drain')).toBeGreaterThan(env.events.indexOf('stop claiming'));
    expect(worker.steps).toBe(1);
  });

  it('waits for a drainsLast worker at onApplicationShutdown, after the others have drained', async () => {
    const env = new FakeEnvironment(true);
    const step = heldStep();
    const worker = new TestWorker(env, { drainsLast: true }, step.work);
    await worker.onApplicationBootstrap();
    await settle();

    worker.onModuleDestroy();
    await worker.beforeApplicationShutdown();
    expect(env.events).not.toContain('drain');
    let stopped = false;
    const stopping = worker.onApplicationShutdown().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);

    step.finish();
    await stopping;
    expect(env.events.filter((event) => event === 'drain')).toHaveLength(1);
    expect(worker.steps).toBe(1);
  });

  it('stops harmlessly when it never started', async () => {
    const env = new FakeEnvironment(false);
    const worker = new TestWorker(env);
    await worker.onApplicationBootstrap();

    await stopAll(worker);

    expect(worker.steps).toBe(0);
  });
});
