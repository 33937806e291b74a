import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { embeddedDatabaseDir, ROOT_DATABASES_DIR } from '../../../src/database/embedded-postgres';
import { createDedicatedDatabase } from './helpers/databases';
import { httpGet, lines, spawnService, waitUntilHealthy } from './helpers/service-process';

const ADMIN_PASSWORD = 'startup-admin-password-42';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/** The port the embedded PostgreSQL reported when it started (a JSON log line). */
function embeddedPostgresPort(stdout: string): number {
  for (const line of lines(stdout)) {
    const entry = JSON.parse(line) as { context?: string; message?: { port?: number } };
    if (entry.context === 'EmbeddedPostgres' && typeof entry.message?.port === 'number') {
      return entry.message.port;
    }
  }
  throw new Error(`No embedded PostgreSQL port in the log:\n${stdout}`);
}

describe('the service process (node src/main.ts)', () => {
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'campaign-service-startup-'));
    // As root, the embedded PostgreSQL runs as the postgres user, which must reach the folder.
    chmodSync(dir, 0o755);
    dirs.push(dir);
    return dir;
  };

  afterAll(() => {
    for (const dir of dirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start with an invalid variable: exits non-zero naming it, and writes nothing', async () => {
    const dataDir = tempDir();
    const service = await spawnService({ PORT: 'abc', DATA_DIR: dataDir, ROLE: 'boss' }, 0);
    expect(await service.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    expect(service.stderr()).toContain('PORT="abc"');
    expect(service.stderr()).toContain('ROLE="boss"');
    expect(existsSync(join(dataDir, 'admin-password'))).toBe(false);
  }, 90_000);

  it('with DATABASE_URL: migrates, answers health UP, and exits cleanly on SIGTERM', async () => {
    const database = await createDedicatedDatabase('startup');
    try {
      const service = await spawnService({
        DATABASE_URL: database.url,
        DATA_DIR: tempDir(),
        ADMIN_PASSWORD,
        LOG_LEVEL: 'info',
      });
      try {
        await waitUntilHealthy(service, '/actuator/health');
        const health = await httpGet(service.port, '/actuator/health');
        expect(health?.status).toBe(200);
        expect((JSON.parse(health?.body ?? '{}') as { status: string }).status).toBe('UP');
        await request(service.baseUrl)
          .post('/api/auth/register')
          .set('ACCESS_TOKEN', `Bearer ${ADMIN_PASSWORD}`)
          .send({ email: 'startup@teste.com.br', password: 'segredo123' })
          .expect(200);
      } finally {
        const exit = await service.stop('SIGTERM');
        expect(exit).toEqual({ code: 0, signal: null });
      }
      expect(service.stderr()).toBe('');
      expect(await accepts(service.port)).toBe(false);
      expect(lines(service.stdout()).some((line) => line.includes('"Service listening"'))).toBe(
        true,
      );
    } finally {
      await database.drop();
    }
  }, 120_000);

  it('without DATABASE_URL: runs an embedded PostgreSQL under DATA_DIR, generates and logs the admin password once, and stops PostgreSQL on SIGINT', async () => {
    const dataDir = tempDir();
    const first = await spawnService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    let postgresPort: number;
    let adminPassword: string;
    try {
      await waitUntilHealthy(first, '/actuator/health', 120_000);
      const health = JSON.parse((await httpGet(first.port, '/actuator/health'))?.body ?? '{}') as {
        status: string;
        components: { db: { status: string } };
      };
      expect(health.status).toBe('UP');
      expect(health.components.db.status).toBe('UP');

      const passwordFile = join(dataDir, 'admin-password');
      expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
      adminPassword = readFileSync(passwordFile, 'utf8').trim();
      expect(adminPassword.length).toBeGreaterThanOrEqual(24);
      expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);

      postgresPort = embeddedPostgresPort(first.stdout());
      expect(await accepts(postgresPort)).toBe(true);

      await request(first.baseUrl)
        .post('/api/auth/register')
        .set('ACCESS_TOKEN', `Bearer ${adminPassword}`)
        .send({ email: 'embutido@teste.com.br', password: 'segredo123' })
        .expect(200);
    } finally {
      const exit = await first.stop('SIGINT', 60_000);
      expect(exit).toEqual({ code: 0, signal: null });
    }
    const firstLog = first.stdout() + first.stderr();
    expect(occurrences(firstLog, adminPassword)).toBe(1);
    const announcing = lines(first.stdout()).filter((line) => line.includes(adminPassword));
    expect(JSON.parse(announcing[0])).toMatchObject({ adminPassword, context: 'Bootstrap' });
    expect(await accepts(postgresPort)).toBe(false);
    expect(await accepts(first.port)).toBe(false);

    // The next start reuses DATA_DIR: same password (not logged again), same data.
    const second = await spawnService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
    try {
      await waitUntilHealthy(second, '/actuator/health', 120_000);
      expect(readFileSync(join(dataDir, 'admin-password'), 'utf8').trim()).toBe(adminPassword);
      await request(second.baseUrl)
        .post('/api/auth/login')
        .send({ email: 'embutido@teste.com.br', password: 'segredo123' })
        .expect(200);
      await request(second.baseUrl)
        .get('/api/admin/companies')
        .set('ACCESS_TOKEN', `Bearer ${adminPassword}`)
        .expect(200);
      postgresPort = embeddedPostgresPort(second.stdout());
    } finally {
      const exit = await second.stop('SIGINT', 60_000);
      expect(exit).toEqual({ code: 0, signal: null });
    }
    expect(occurrences(second.stdout() + second.stderr(), adminPassword)).toBe(0);
    expect(await accepts(postgresPort)).toBe(false);
  }, 300_000);

  it('as root, starts from a folder under /root (mode 700), keeping the embedded database where PostgreSQL can reach it', async () => {
    const dataDirUnderRoot = '/root/loja/.data';
    if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
      // A normal user's database always stays in DATA_DIR; the root case needs root to run.
      expect(embeddedDatabaseDir(dataDirUnderRoot, false)).toBe(`${dataDirUnderRoot}/postgres`);
      return;
    }
    const home = mkdtempSync(join('/root', 'campaign-service-root-start-'));
    chmodSync(home, 0o700);
    const dataDir = join(home, '.data');
    const databaseDir = embeddedDatabaseDir(dataDir, true);
    expect(databaseDir.startsWith(`${ROOT_DATABASES_DIR}/`)).toBe(true);
    try {
      const service = await spawnService({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      try {
        await waitUntilHealthy(service, '/actuator/health', 120_000);
        expect((await httpGet(service.port, '/actuator/health'))?.status).toBe(200);
      } finally {
        expect(await service.stop('SIGINT', 60_000)).toEqual({ code: 0, signal: null });
      }
      // The log says where the embedded database lives.
      const reported = lines(service.stdout())
        .map((line) => JSON.parse(line) as { message?: { databaseDir?: string } })
        .find((entry) => typeof entry.message?.databaseDir === 'string');
      expect(reported?.message?.databaseDir).toBe(databaseDir);
      expect(existsSync(join(databaseDir, 'PG_VERSION'))).toBe(true);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(dirname(databaseDir), { recursive: true, force: true });
    }
  }, 300_000);
});
