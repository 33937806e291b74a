import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `script`, the absolute path of a module: its compiled .js in
 * production, its .ts when the service runs from sources (tests and benches, under ts-node or
 * ts-jest), which the thread then compiles itself.
 */
export function startWorkerThread(script: string): Worker {
  if (script.endsWith('.ts')) {
    return new Worker(
      `require('ts-node').register({ transpileOnly: true }); require(${JSON.stringify(script)});`,
      { eval: true },
    );
  }
  return new Worker(script);
}
