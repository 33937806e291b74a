/**
 * A fake server of test/support in a child process of its own, as the service it stands for
 * is: its HTTP handling then counts neither in the CPU nor in the event loop of the processes
 * under test. The module that calls forkFake is run again as the child, where serveForked
 * answers the parent's requests over IPC, one answer per request.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface ForkedFake<Request> {
  url: string;
  child: ChildProcess;
  ask: <T>(request: Request) => Promise<T>;
  stop: () => Promise<void>;
}

/**
 * Starts `file` as the child and waits for its URL. `advanced`: structured clone instead of
 * JSON, for large answers. The child is killed if this process exits first.
 */
export async function forkFake<Request extends object>(
  file: string,
  name: string,
  advanced = false,
): Promise<ForkedFake<Request>> {
  const child = fork(file, [], {
    cwd: ROOT,
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    serialization: advanced ? 'advanced' : 'json',
  });
  const stopOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', stopOnExit);
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  child.on('message', (message: { id?: number; result?: unknown }) => {
    if (message.id !== undefined) {
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url?: string }) =>
      message.url ? resolve(message.url) : reject(new Error(`${name} did not start`)),
    );
    child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
  });
  const ask = <T>(request: Request): Promise<T> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (value: unknown) => void);
      child.send({ ...request, id });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return resolve();
      }
      child.once('exit', () => {
        process.removeListener('exit', stopOnExit);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { url, child, ask, stop };
}

/** The child's side: announces the started fake's URL, then answers each request with `answer`. */
export function serveForked<Request>(
  fake: { url: string; stop(): Promise<void> },
  answer: (request: Request) => unknown,
): void {
  process.on('message', (request: Request & { id: number }) => {
    process.send?.({ id: request.id, result: answer(request) });
  });
  process.on('SIGTERM', () => void fake.stop().then(() => process.exit(0)));
  process.send?.({ url: fake.url });
}
