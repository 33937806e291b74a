/**
 * A load generator for a mix of routes, meant to run in a process of its own (see
 * mixed-load.ts): autocannon's CLI drives one URL, this drives several, each connection
 * cycling through them in turn, and keeps the latency of every response by route.
 *
 *   node -r ts-node/register/transpile-only bench/support/mixed-load-client.ts < plan.json
 *
 * Reads a MixedLoadPlan (JSON) on stdin and prints one MixedLoadSummary (JSON) on stdout.
 * With an IPC channel, it also sends {type: 'started'} when the connections open and
 * {type: 'finished'} when the run ends, so that the parent can time its own measurements
 * to the load's window.
 */
import autocannon from 'autocannon';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { MixedLoadPlan, MixedLoadSummary, LatencyFigures } from './mixed-load';

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

/** Exact percentiles of the recorded response times (ms). */
export function latencyFigures(times: number[]): LatencyFigures {
  const sorted = Float64Array.from(times).sort();
  const at = (share: number): number =>
    sorted.length === 0
      ? 0
      : sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)];
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: sorted.length === 0 ? 0 : sorted[sorted.length - 1],
    average: sorted.length === 0 ? 0 : sum / sorted.length,
  };
}

interface RouteTally {
  path: string;
  times: number[];
  non2xx: number;
}

/** autocannon keeps each request object as given; `name` rides along to the response event. */
interface NamedRequest extends autocannon.Request {
  name: string;
}

async function run(plan: MixedLoadPlan): Promise<MixedLoadSummary> {
  const origins = new Set(plan.targets.map((target) => new URL(target.url).origin));
  if (origins.size !== 1) {
    throw new Error(`every target must be on one origin, got ${[...origins].join(', ')}`);
  }
  const [origin] = origins;
  if (new Set(plan.targets.map((target) => target.name)).size !== plan.targets.length) {
    throw new Error('every target needs a name of its own: responses are counted by name');
  }
  const tallies = new Map<string, RouteTally>(
    plan.targets.map((target) => {
      const url = new URL(target.url);
      return [target.name, { path: `${url.pathname}${url.search}`, times: [], non2xx: 0 }];
    }),
  );
  const requests: NamedRequest[] = plan.targets.map((target) => ({
    name: target.name,
    method: target.method ?? 'GET',
    path: tallies.get(target.name)?.path,
    headers: target.headers,
    body: target.body,
  }));
  let startedAt = Date.now();
  // The callback form returns the instance, whose events give every response as it comes.
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin,
        connections: plan.connections,
        duration: plan.durationSeconds,
        // One request at a time per connection: the response event relies on it (below).
        pipelining: 1,
        requests,
      },
      (error: Error | null, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('start', () => {
      startedAt = Date.now();
      process.send?.({ type: 'started' });
    });
    // With pipelining 1, the iterator still points at the request this response answers: the
    // client moves to its next request only after this event.
    instance.on('response', (client, statusCode, _bytes, responseTime) => {
      const current = (client as unknown as { requestIterator: { currentRequest: NamedRequest } })
        .requestIterator.currentRequest;
      const tally = tallies.get(current.name);
      if (tally) {
        tally.times.push(responseTime);
        if (statusCode < 200 || statusCode > 299) {
          tally.non2xx += 1;
        }
      }
    });
  });
  const finishedAt = Date.now();
  process.send?.({ type: 'finished' });
  const seconds = result.duration;
  const routes = [...tallies].map(([name, tally]) => ({
    name,
    path: tally.path,
    requests: tally.times.length,
    requestsPerSecond: tally.times.length / seconds,
    non2xx: tally.non2xx,
    latencyMs: latencyFigures(tally.times),
  }));
  return {
    startedAt,
    finishedAt,
    durationSeconds: seconds,
    connections: plan.connections,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyMs: latencyFigures([...tallies.values()].flatMap((tally) => tally.times)),
    routes,
  };
}

/** One request on a keep-alive agent; resolves with its status once the body is read. */
function send(agent: Agent, url: URL, target: MixedLoadPlan['targets'][number]): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      { agent, method: target.method ?? 'GET', headers: target.headers },
      (response) => {
        response.on('data', () => undefined);
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(target.body);
  });
}

/**
 * The open loop: `connections` senders, each on a fixed schedule of one request every
 * connections / ratePerSecond seconds from a random phase. A request's latency counts from
 * its scheduled time, so that a sender held up by a slow answer reports the wait of the
 * requests it could not send (no coordinated omission).
 */
async function runPaced(plan: MixedLoadPlan, ratePerSecond: number): Promise<MixedLoadSummary> {
  const agent = new Agent({ keepAlive: true, maxSockets: plan.connections });
  const intervalMs = (plan.connections / ratePerSecond) * 1000;
  const tallies = plan.targets.map((target) => {
    const url = new URL(target.url);
    return { target, url, path: `${url.pathname}${url.search}`, times: [] as number[], non2xx: 0 };
  });
  let errors = 0;
  const startedAt = Date.now();
  const start = performance.now();
  const end = start + plan.durationSeconds * 1000;
  process.send?.({ type: 'started' });
  const sender = async (index: number): Promise<void> => {
    let due = start + Math.random() * intervalMs;
    for (let n = index; due < end; n += 1, due += intervalMs) {
      const wait = due - performance.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const tally = tallies[n % tallies.length];
      try {
        const status = await send(agent, tally.url, tally.target);
        tally.times.push(performance.now() - due);
        if (status < 200 || status > 299) {
          tally.non2xx += 1;
        }
      } catch {
        errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: plan.connections }, (_v, i) => sender(i)));
  const finishedAt = Date.now();
  process.send?.({ type: 'finished' });
  agent.destroy();
  const seconds = (finishedAt - startedAt) / 1000;
  const all = tallies.flatMap((tally) => tally.times);
  return {
    startedAt,
    finishedAt,
    durationSeconds: seconds,
    connections: plan.connections,
    requests: all.length,
    requestsPerSecond: all.length / seconds,
    non2xx: tallies.reduce((sum, tally) => sum + tally.non2xx, 0),
    errors,
    timeouts: 0,
    latencyMs: latencyFigures(all),
    routes: tallies.map((tally) => ({
      name: tally.target.name,
      path: tally.path,
      requests: tally.times.length,
      requestsPerSecond: tally.times.length / seconds,
      non2xx: tally.non2xx,
      latencyMs: latencyFigures(tally.times),
    })),
  };
}

async function main(): Promise<void> {
  const plan = JSON.parse(await readStdin()) as MixedLoadPlan;
  const summary =
    plan.ratePerSecond === undefined ? await run(plan) : await runPaced(plan, plan.ratePerSecond);
  process.stdout.write(`${JSON.stringify(summary)}\n`, () => process.exit(0));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
