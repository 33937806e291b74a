import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, testDatabaseUrl } from './test-app';

export const SHARED_ENCRYPTION_KEY = 'shared-test-encryption-key-0123456789';
const ROOT = join(__dirname, '..', '..');

/** Children that must not outlive the test process, whatever way it ends. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) {
    child.kill('SIGKILL');
  }
});

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  /** SIGKILL: no shutdown hook runs, as in a crash. */
  kill9(): Promise<void>;
  /** Sends `signal` (SIGTERM by default) unless the process already ended; answers how it ended. */
  stop(signal?: NodeJS.Signals): Promise<ProcessExit>;
}

/**
 * The real service in a separate process (src/main.ts through ts-node), ROLE=worker by
 * default, against the run's test database. Resolves once the dispatch loop has started.
 */
export async function startWorkerProcess(
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: testDatabaseUrl(),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'campaign-worker-')),
      ADMIN_PASSWORD,
      ENCRYPTION_KEY: SHARED_ENCRYPTION_KEY,
      ROLE: 'worker',
      LOG_LEVEL: 'info',
      TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not start in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = setInterval(() => {
      if (output.includes('Campaign dispatch started')) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
      }
      return exited;
    },
  };
}
