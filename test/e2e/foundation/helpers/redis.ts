import { ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from '../../../../src/database/embedded-postgres';

export interface TestRedis {
  url: string;
  client: Redis;
  /** Deletes the keys under `prefix`, disconnects, and stops the redis-server this helper started, if any. */
  close(prefix: string): Promise<void>;
}

async function answers(url: string): Promise<Redis | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG' ? client : null;
  } catch {
    client.disconnect();
    return null;
  }
}

async function startRedisServer(): Promise<{ url: string; client: Redis; server: ChildProcess }> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const spawnError = new Promise<Error>((resolve) => server.once('error', resolve));
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    // Polls every 100 ms (the deadline bounds the wait) unless the spawn fails first.
    const failed = await Promise.race([
      spawnError,
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 100)),
    ]);
    if (failed) {
      throw new Error(`redis-server could not be started (${failed.message})`);
    }
    const client = await answers(url);
    if (client) {
      return { url, client, server };
    }
  }
  server.kill('SIGKILL');
  throw new Error(`redis-server started on port ${port} but did not answer within 10 s`);
}

/**
 * A Redis for the test: REDIS_URL (or redis://127.0.0.1:6379) when one answers there, otherwise a
 * redis-server from PATH on a free port for the duration of the test. Never skips: with neither,
 * it fails and says why.
 */
export async function useTestRedis(): Promise<TestRedis> {
  const configured = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const existing = await answers(configured);
  const started = existing
    ? undefined
    : await startRedisServer().catch((error: Error) => {
        throw new Error(
          `The Redis rate-limit test needs Redis: nothing answers at ${configured} and ${error.message}. ` +
            'Start Redis, set REDIS_URL, or put redis-server on PATH.',
        );
      });
  const client = existing ?? (started as { client: Redis }).client;
  return {
    url: existing ? configured : (started as { url: string }).url,
    client,
    close: async (prefix: string) => {
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) {
        await client.del(...keys);
      }
      client.disconnect();
      if (started) {
        const exited = new Promise((resolve) => started.server.once('exit', resolve));
        started.server.kill('SIGTERM');
        await exited;
      }
    },
  };
}
