import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitFor } from './api';
import { BENCH_ADMIN_PASSWORD } from './app';

const ROOT = join(__dirname, '..', '..');
const UNLIMITED = '1000000000';

export interface ServiceProcess {
  baseUrl: string;
  pid: number;
  /** SIGTERM, and resolves once the process has exited (its CPU profile, if any, is written). */
  stop(): Promise<void>;
}

export interface ServiceProcessOptions {
  /** ROLE of the process: 'api' (default) or 'all' (it also runs the workers). */
  role?: 'api' | 'all';
  /** Writes a V8 CPU profile (.cpuprofile) into this directory when the process exits. */
  cpuProfileDir?: string;
  env?: Record<string, string>;
}

/** An unused TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resident and peak resident memory (VmRSS, VmHWM) of a process, in MB (Linux). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** utime + stime of a process so far, in ms (Linux /proc, clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The flags the service starts with in production (Dockerfile, `npm start`). */
const PRODUCTION_NODE_FLAGS = ['--max-semi-space-size=16'];

/**
 * The service as it runs in production (compiled JavaScript, `node dist/main.js` with
 * PRODUCTION_NODE_FLAGS) in its own process, so that its memory and CPU are its own and not the harness's.
 * It is compiled into `dir`/dist first.
 */
export async function startServiceProcess(
  dir: string,
  databaseUrl: string,
  options: ServiceProcessOptions = {},
): Promise<ServiceProcess> {
  const outDir = join(dir, 'dist');
  execFileSync(
    process.execPath,
    [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const port = await freePort();
  const profiling = options.cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profiling, ...PRODUCTION_NODE_FLAGS, join(outDir, 'main.js')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_PATH: join(ROOT, 'node_modules'),
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        DATA_DIR: mkdtempSync(join(dir, 'data-')),
        ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
        ROLE: options.role ?? 'api',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: UNLIMITED,
        RATE_LIMIT_PER_HOUR: UNLIMITED,
        ANONYMOUS_RATE_LIMIT_PER_MINUTE: UNLIMITED,
        ...options.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    'the service process to answer',
    () =>
      fetch(`${baseUrl}/actuator/health`).then(
        () => true,
        () => false,
      ),
    120_000,
  );
  return {
    baseUrl,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
      }
      await exited;
    },
  };
}
