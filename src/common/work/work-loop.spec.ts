import { WorkLoop } from './work-loop';

// Real time spans: the loop's own timers (idle sleep, error back-off) are what is tested.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the loop, lets it run for `ms`, and stops it. */
async function runFor(loop: WorkLoop, ms: number): Promise<void> {
  loop.start();
  await sleep(ms);
  await loop.stop();
}

describe('WorkLoop', () => {
  it('runs again at once while the step reports work, and sleeps when it reports none', async () => {
    let calls = 0;
    const loop = new WorkLoop('test', () => Promise.resolve(++calls < 5 ? 0 : null), {
      idleMs: 60_000,
    });
    await runFor(loop, 200);
    expect(calls).toBe(5);
  });

  it('does not lose a wake-up that arrives while a step is running', async () => {
    let calls = 0;
    let loop: WorkLoop | undefined = undefined;
    loop = new WorkLoop(
      'test',
      async () => {
        calls += 1;
        if (calls === 1) {
          // New work is announced while this step is still busy.
          loop?.wake();
        }
        await sleep(5);
        return null;
      },
      { idleMs: 60_000 },
    );
    await runFor(loop, 200);
    expect(calls).toBe(2);
  });

  it('ends a sleep early when woken', async () => {
    let calls = 0;
    const loop = new WorkLoop('test', () => Promise.resolve((calls += 1) && null), {
      idleMs: 60_000,
    });
    loop.start();
    await sleep(50);
    loop.wake();
    await sleep(50);
    await loop.stop();
    expect(calls).toBe(2);
  });

  it('keeps going after a failing step, after a pause', async () => {
    let calls = 0;
    const loop = new WorkLoop(
      'test',
      () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('database down')) : Promise.resolve(null);
      },
      { idleMs: 60_000, errorBackoffMs: 10 },
    );
    await runFor(loop, 200);
    expect(calls).toBe(2);
  });
});
