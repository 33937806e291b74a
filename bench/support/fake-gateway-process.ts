/**
 * The fake Evolution API in a process of its own, as the real gateway is a service of its
 * own: its HTTP handling then does not count in the event loop and CPU of the service under
 * test. The parent sends {type: 'add-instance'} and {type: 'sent-times'} over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { FakeEvolutionApi } from '../../test/support/fake-evolution-api';

const ROOT = join(__dirname, '..', '..');

type Request = { type: 'add-instance'; name: string; apiKey: string } | { type: 'sent-times' };
type Command = Request & { id: number };

export interface FakeGatewayProcess {
  url: string;
  addInstance(name: string, apiKey: string): Promise<void>;
  /** When each message was received, epoch ms, in order. */
  sentTimes(): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startFakeGatewayProcess(): Promise<FakeGatewayProcess> {
  const child: ChildProcess = fork(__filename, [], {
    cwd: ROOT,
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
  });
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 1;
  child.on('message', (message: { id?: number; url?: string; result?: unknown }) => {
    if (message.id !== undefined) {
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { url?: string }) =>
      message.url ? resolve(message.url) : reject(new Error('the fake gateway did not start')),
    );
    child.once('exit', (code) => reject(new Error(`the fake gateway exited (${code})`)));
  });
  const ask = <T>(command: Request): Promise<T> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (value: unknown) => void);
      child.send({ ...command, id });
    });
  return {
    url,
    addInstance: (name, apiKey) => ask({ type: 'add-instance', name, apiKey }),
    sentTimes: () => ask({ type: 'sent-times' }),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function serve(): Promise<void> {
  const fake = new FakeEvolutionApi();
  await fake.start();
  process.on('message', (command: Command) => {
    if (command.type === 'add-instance') {
      fake.addInstance(command.name, { apiKey: command.apiKey, state: 'open' });
      process.send?.({ id: command.id });
    } else {
      process.send?.({ id: command.id, result: fake.sent.map((message) => message.at.getTime()) });
    }
  });
  process.on('SIGTERM', () => void fake.stop().then(() => process.exit(0)));
  process.send?.({ url: fake.url });
}

if (require.main === module) {
  void serve();
}
