import type { Result as AutocannonResult } from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface LoadSettings {
  connections: number;
  pipelining: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** How many times a benchmark measures each of its targets, interleaved; it reports the median. */
  rounds: number;
}

export const DEFAULT_LOAD_SETTINGS: LoadSettings = {
  connections: 50,
  pipelining: 1,
  durationSeconds: 10,
  warmupSeconds: 2,
  rounds: 1,
};

/**
 * BENCH_CONNECTIONS, BENCH_PIPELINING, BENCH_DURATION and BENCH_WARMUP (seconds) and
 * BENCH_ROUNDS override the defaults.
 */
export function loadSettingsFrom(env: NodeJS.ProcessEnv): LoadSettings {
  const read = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      return fallback;
    }
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min) {
      throw new Error(`${name}=${raw}: expected a number ≥ ${min}`);
    }
    return value;
  };
  return {
    connections: read('BENCH_CONNECTIONS', DEFAULT_LOAD_SETTINGS.connections, 1),
    pipelining: read('BENCH_PIPELINING', DEFAULT_LOAD_SETTINGS.pipelining, 1),
    durationSeconds: read('BENCH_DURATION', DEFAULT_LOAD_SETTINGS.durationSeconds, 1),
    warmupSeconds: read('BENCH_WARMUP', DEFAULT_LOAD_SETTINGS.warmupSeconds, 0),
    rounds: Math.round(read('BENCH_ROUNDS', DEFAULT_LOAD_SETTINGS.rounds, 1)),
  };
}

export interface LoadTarget {
  name: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  name: string;
  url: string;
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; average: number; max: number };
  totalRequests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  /**
   * CPU time (user + system) of this process, where the servers under test run, per response
   * during the measured run. Less sensitive to busy neighbours than requests/s.
   */
  serverCpuMicrosPerRequest: number;
  /** Share of the measured run this process's event loop was busy: near 1, the server was the bottleneck. */
  serverEventLoopUtilization: number;
}

/** Requests still in the server when autocannon stops (up to one per connection) finish in this time. */
const SETTLE_MS = 1_000;

export const LOAD_GENERATOR_DESCRIPTION =
  'autocannon 9 CLI in a child node process (the servers run in the harness process)';

/**
 * Drives `target` with autocannon: a warm-up run whose figures are thrown away, then the
 * measured run. autocannon runs as a child process (its CLI with --json), so that the load
 * generator and the server under test do not share one event loop.
 */
export async function measureLoad(target: LoadTarget, settings: LoadSettings): Promise<LoadResult> {
  if (settings.warmupSeconds > 0) {
    await runAutocannon(target, settings, settings.warmupSeconds);
  }
  const cpuBefore = process.cpuUsage();
  const loopBefore = performance.eventLoopUtilization();
  const result = await runAutocannon(target, settings, settings.durationSeconds);
  const cpu = process.cpuUsage(cpuBefore);
  const loop = performance.eventLoopUtilization(loopBefore);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return {
    name: target.name,
    url: target.url,
    requestsPerSecond: result.requests.average,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      average: result.latency.average,
      max: result.latency.max,
    },
    totalRequests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    serverCpuMicrosPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests.total),
    serverEventLoopUtilization: loop.utilization,
  };
}

function runAutocannon(
  target: LoadTarget,
  settings: LoadSettings,
  seconds: number,
): Promise<AutocannonResult> {
  const args = [
    require.resolve('autocannon/autocannon.js'),
    '--json',
    '--no-progress',
    '--connections',
    String(settings.connections),
    '--pipelining',
    String(settings.pipelining),
    '--duration',
    String(seconds),
    '--method',
    target.method ?? 'GET',
  ];
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    args.push('--headers', `${name}=${value}`);
  }
  if (target.body !== undefined) {
    args.push('--body', target.body);
  }
  args.push(target.url);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return jsonOutputOf<AutocannonResult>(child, 'autocannon');
}

/** What a child process prints on stdout, as JSON, once it exits with 0; its stderr otherwise. */
export function jsonOutputOf<T>(child: ChildProcess, name: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const output = Buffer.concat(stdout).toString('utf8').trim();
      if (code !== 0 || !output) {
        reject(
          new Error(
            `${name} exited with ${code}: ${Buffer.concat(stderr).toString('utf8').trim()}`,
          ),
        );
        return;
      }
      try {
        resolve(JSON.parse(output) as T);
      } catch {
        reject(new Error(`${name} printed no JSON: ${output.slice(0, 500)}`));
      }
    });
  });
}

/** Per figure, the median over rounds of one target (each figure on its own). */
export function medianResult(rounds: LoadResult[]): LoadResult {
  if (rounds.length === 0) {
    throw new Error('medianResult needs at least one round');
  }
  const median = (pick: (r: LoadResult) => number): number => {
    const values = rounds.map(pick).sort((a, b) => a - b);
    const middle = Math.floor(values.length / 2);
    return values.length % 2 === 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  };
  const sum = (pick: (r: LoadResult) => number): number =>
    rounds.reduce((total, r) => total + pick(r), 0);
  return {
    name: rounds[0].name,
    url: rounds[0].url,
    requestsPerSecond: median((r) => r.requestsPerSecond),
    latencyMs: {
      p50: median((r) => r.latencyMs.p50),
      p90: median((r) => r.latencyMs.p90),
      p99: median((r) => r.latencyMs.p99),
      average: median((r) => r.latencyMs.average),
      max: Math.max(...rounds.map((r) => r.latencyMs.max)),
    },
    totalRequests: sum((r) => r.totalRequests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    durationSeconds: sum((r) => r.durationSeconds),
    serverCpuMicrosPerRequest: median((r) => r.serverCpuMicrosPerRequest),
    serverEventLoopUtilization: median((r) => r.serverEventLoopUtilization),
  };
}
