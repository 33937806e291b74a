import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { jsonOutputOf, type LoadTarget } from './load';

const ROOT = join(__dirname, '..', '..');
const CLIENT = join(__dirname, 'mixed-load-client.ts');

/** One route of the mix (its name labels it in the summary); every target of a plan is on the same origin. */
export type MixedLoadTarget = LoadTarget;

export interface MixedLoadPlan {
  targets: MixedLoadTarget[];
  connections: number;
  durationSeconds: number;
  /**
   * Requests per second offered in all, spread evenly over the connections (an open loop):
   * each connection sends on its own schedule, whether or not its last answer was late.
   * Without it, every connection sends its next request as soon as the last is answered
   * (a closed loop, autocannon), which saturates the server.
   */
  ratePerSecond?: number;
}

export interface LatencyFigures {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  average: number;
}

export interface RouteSummary {
  name: string;
  /** Path and query of the route's URL. */
  path: string;
  requests: number;
  requestsPerSecond: number;
  non2xx: number;
  latencyMs: LatencyFigures;
}

export interface MixedLoadSummary {
  /** Epoch ms when the connections opened and when the run ended (the client's clock, this machine's). */
  startedAt: number;
  finishedAt: number;
  durationSeconds: number;
  connections: number;
  requests: number;
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  non2xx: number;
  /** Connection errors and timeouts (a request that got no answer). */
  errors: number;
  timeouts: number;
  /** Exact percentiles over every response of the run, all routes together. */
  latencyMs: LatencyFigures;
  routes: RouteSummary[];
}

export interface MixedLoadHooks {
  /** The connections opened: the measured window begins. */
  onStarted?: () => void;
  /** The load stopped (before the summary is printed). */
  onFinished?: () => void;
}

export const MIXED_LOAD_GENERATOR_DESCRIPTION =
  'autocannon 9 (programmatic, each connection cycling through the routes) in a child node process; the servers run in the harness process';

/**
 * Runs `plan` with bench/support/mixed-load-client.ts in a child process, so that the load
 * generator never shares an event loop with the server under test, and resolves with its
 * summary. The hooks fire when the child's connections open and when its run ends.
 */
export function runMixedLoad(
  plan: MixedLoadPlan,
  hooks: MixedLoadHooks = {},
): Promise<MixedLoadSummary> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', CLIENT], {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    // The plan (with its access tokens) goes on stdin, not on the command line.
    stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
  });
  child.on('message', (message: { type?: string }) => {
    if (message.type === 'started') {
      hooks.onStarted?.();
    } else if (message.type === 'finished') {
      hooks.onFinished?.();
    }
  });
  const summary = jsonOutputOf<MixedLoadSummary>(child, 'mixed-load client');
  child.stdin?.end(JSON.stringify(plan));
  return summary;
}
