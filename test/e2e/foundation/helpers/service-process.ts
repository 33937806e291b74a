import { ChildProcess, spawn } from 'node:child_process';
import { get } from 'node:http';
import { join } from 'node:path';
import { freePort } from '../../../../src/database/embedded-postgres';

const PROJECT_ROOT = join(__dirname, '..', '..', '..', '..');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** Sends the signal and waits (bounded) for the process to end by itself. */
  stop(signal: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** Waits (bounded) for the process to end on its own; kills it and fails when it does not. */
  waitForExit(timeoutMs: number): Promise<Exit>;
}

/** GET on 127.0.0.1; resolves the status and body, or null when nothing answers. */
export function httpGet(
  port: number,
  path: string,
): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path, timeout: 2_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(null));
  });
}

/**
 * Starts the service the way `npm start` runs it, from the TypeScript sources (dist/ may be
 * stale while the tree is being edited): `node -r ts-node/register/transpile-only src/main.ts`.
 * The environment is only what is given (plus PATH and HOME), never the test runner's.
 */
export async function spawnService(
  env: Record<string, string>,
  port?: number,
): Promise<ServiceProcess> {
  const chosenPort = port ?? (await freePort());
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      PORT: String(chosenPort),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitForExit = async (timeoutMs: number, after = 'start'): Promise<Exit> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)),
    );
    const outcome = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      child.kill('SIGKILL');
      await exited;
      throw new Error(`The service did not exit within ${timeoutMs} ms of ${after}`);
    }
    return outcome;
  };
  const stop = (signal: NodeJS.Signals, timeoutMs = 30_000): Promise<Exit> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
    return waitForExit(timeoutMs, signal);
  };
  return {
    child,
    port: chosenPort,
    baseUrl: `http://127.0.0.1:${chosenPort}`,
    stdout: () => out,
    stderr: () => err,
    exited,
    stop,
    waitForExit: (timeoutMs: number) => waitForExit(timeoutMs),
  };
}

/** Waits (bounded) until `path` answers 200; fails with the process output when it exits or times out. */
export async function waitUntilHealthy(
  service: ServiceProcess,
  path = '/actuator/health/liveness',
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exit: Exit | undefined;
  void service.exited.then((e) => (exit = e));
  while (Date.now() < deadline) {
    if (exit) {
      throw new Error(
        `The service exited (${JSON.stringify(exit)}) before answering:\n${service.stderr()}\n${service.stdout()}`,
      );
    }
    const response = await httpGet(service.port, path);
    if (response?.status === 200) {
      return;
    }
    // The polling interval; the deadline bounds the wait.
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await service.stop('SIGKILL').catch(() => undefined);
  throw new Error(
    `The service did not answer ${path} within ${timeoutMs} ms:\n${service.stderr()}\n${service.stdout()}`,
  );
}

/** The non-empty lines of a log. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}
