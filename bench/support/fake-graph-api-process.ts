/**
 * The fake Graph API (test/support/fake-graph-api) in a process of its own, as Meta is a
 * service of its own: its HTTP handling then neither counts in the CPU of the processes under
 * test nor waits for the harness's event loop, so the arrival times it stamps are its own. It
 * keeps only when each message arrived, per phone number id (recordArrivalsOnly). The parent
 * sends {type: 'add-number' | 'add-template' | 'take-arrivals'} over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import {
  FakeGraphApi,
  type FakeNumber,
  type MetaTemplate,
} from '../../test/support/fake-graph-api';
import { processCpuMs } from './worker-process';

const ROOT = join(__dirname, '..', '..');

export type FakeNumberInput = Pick<
  FakeNumber,
  'phoneNumberId' | 'businessAccountId' | 'accessToken'
> &
  Partial<FakeNumber>;

type Request =
  | { type: 'add-number'; number: FakeNumberInput }
  | { type: 'add-template'; businessAccountId: string; template: MetaTemplate }
  | { type: 'take-arrivals' };
type Command = Request & { id: number };

export interface FakeGraphApiProcess {
  url: string;
  addNumber(number: FakeNumberInput): Promise<void>;
  addTemplate(businessAccountId: string, template: MetaTemplate): Promise<void>;
  /** Arrival times (epoch ms) per phone number id since the last call, oldest first. */
  takeArrivals(): Promise<Record<string, number[]>>;
  /** utime + stime of the fake's process so far, in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

export async function startFakeGraphApiProcess(): Promise<FakeGraphApiProcess> {
  const child: ChildProcess = fork(__filename, [], {
    cwd: ROOT,
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    // Structured clone: a few hundred thousand arrival times cross without a JSON round.
    serialization: 'advanced',
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
      message.url ? resolve(message.url) : reject(new Error('the fake Graph API did not start')),
    );
    child.once('exit', (code) => reject(new Error(`the fake Graph API exited (${code})`)));
  });
  const ask = <T>(command: Request): Promise<T> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (value: unknown) => void);
      child.send({ ...command, id });
    });
  return {
    url,
    addNumber: (number) => ask({ type: 'add-number', number }),
    addTemplate: (businessAccountId, template) =>
      ask({ type: 'add-template', businessAccountId, template }),
    takeArrivals: () => ask({ type: 'take-arrivals' }),
    cpuMs: () => processCpuMs(child.pid as number),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          return resolve();
        }
        child.once('exit', () => {
          process.removeListener('exit', stopOnExit);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

function answer(fake: FakeGraphApi, command: Command): unknown {
  switch (command.type) {
    case 'add-number':
      return fake.addNumber(command.number);
    case 'add-template':
      return fake.addTemplate(command.businessAccountId, command.template);
    case 'take-arrivals':
      return fake.takeArrivals();
  }
}

async function serve(): Promise<void> {
  const fake = new FakeGraphApi();
  fake.recordArrivalsOnly();
  await fake.start();
  process.on('message', (command: Command) => {
    process.send?.({ id: command.id, result: answer(fake, command) });
  });
  process.on('SIGTERM', () => void fake.stop().then(() => process.exit(0)));
  process.send?.({ url: fake.url });
}

if (require.main === module) {
  void serve();
}
