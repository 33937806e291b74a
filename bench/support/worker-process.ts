import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_ADMIN_PASSWORD } from './app';

const ROOT = join(__dirname, '..', '..');
/** Output kept per process: the tail, for the failure message. */
const KEPT_OUTPUT = 20_000;

export interface BenchWorker {
  pid: number;
  /** Lines logged at warn (40) and error (50) and above so far, by level. */
  logged(): { warn: number; error: number };
  /** The tail of its output. */
  output(): string;
  /** utime + stime of the process so far, in ms (Linux /proc). */
  cpuMs(): number;
  /** SIGTERM (graceful stop), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The real service in a process of its own (src/main.ts through ts-node, as
 * test/support/worker-process.ts starts it), ROLE=worker by default, against `databaseUrl`.
 * Resolves once its dispatch loop has started.
 */
export async function startBenchWorker(
  databaseUrl: string,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<BenchWorker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'campaign-service-bench-worker-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', 'src/main.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
        ROLE: 'worker',
        LOG_LEVEL: 'info',
        TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stopOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', stopOnExit);
  let tail = '';
  let started = false;
  const logged = { warn: 0, error: 0 };
  const read = (chunk: Buffer): void => {
    const text = chunk.toString();
    tail = (tail + text).slice(-KEPT_OUTPUT);
    started ||= tail.includes('Campaign dispatch started');
    for (const match of text.matchAll(/"level":(\d+)/g)) {
      const level = Number(match[1]);
      if (level >= 50) {
        logged.error += 1;
      } else if (level >= 40) {
        logged.warn += 1;
      }
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      process.removeListener('exit', stopOnExit);
      rmSync(dataDir, { recursive: true, force: true });
      resolve();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(check);
      child.kill('SIGKILL');
      reject(new Error(`worker did not start in ${timeoutMs} ms:\n${tail}`));
    }, timeoutMs);
    const check = setInterval(() => {
      if (started) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${tail}`));
    });
  });
  const pid = child.pid as number;
  return {
    pid,
    logged: () => ({ ...logged }),
    output: () => tail,
    cpuMs: () => processCpuMs(pid),
    stop: async (graceMs = 30_000) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      } else {
        await exited;
      }
    },
  };
}

/** utime + stime of a process in ms, from /proc/<pid>/stat (0 once it is gone). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100;
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
  } catch {
    return 0;
  }
}

/**
 * The CPU of a database's backends, by pid, its transactions, the shared buffers its statements
 * touched (hits and reads) and the server's WAL so far: a run's cost in PostgreSQL. Buffers and
 * WAL count work the way CPU time cannot on a shared host (steal time, a busy neighbour).
 */
export interface DatabaseUsage {
  postgresCpuMs: Map<number, number>;
  transactions: number;
  buffers: number;
  walBytes: number;
}

/** What the backends of `databaseName` used so far (utime + stime each) and its commits + rollbacks. */
export async function databaseUsage(
  sql: { query<R>(text: string, values: unknown[]): Promise<{ rows: R[] }> },
  databaseName: string,
): Promise<DatabaseUsage> {
  const { rows } = await sql.query<{ pid: number; xacts: string; buffers: string; wal: string }>(
    `SELECT a.pid, d.xact_commit + d.xact_rollback AS xacts, d.blks_hit + d.blks_read AS buffers,
            (SELECT wal_bytes FROM pg_stat_wal) AS wal
       FROM pg_stat_activity a JOIN pg_stat_database d ON d.datname = a.datname
      WHERE a.datname = $1`,
    [databaseName],
  );
  return {
    postgresCpuMs: new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)])),
    transactions: Number(rows[0]?.xacts ?? 0),
    buffers: Number(rows[0]?.buffers ?? 0),
    walBytes: Number(rows[0]?.wal ?? 0),
  };
}
