import { rmSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { createDedicatedDatabase } from '../e2e/foundation/helpers/databases';
import { closeDb, db, sqlPool } from './db';
import { FakeEvolutionApi } from './fake-evolution-api';
import { freePort } from './media';
import {
  companiesRegisteredThrough,
  startAppOn,
  testDatabaseUrl,
  TestApp,
  TestCompany,
} from './test-app';
import { SHARED_ENCRYPTION_KEY, startWorkerProcess, WorkerProcess } from './worker-process';

/** A server a spec runs beside the app (a webhook receiver, a media host…). */
export interface SideServer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface E2eFixtureOptions {
  /**
   * The app's environment, over startTestApp's defaults (and over what `role` sets); a
   * function when it names what the fixture starts first (the fake's or a server's address).
   */
  env?: Record<string, string> | (() => Record<string, string>);
  /**
   * 'api': the app runs no background work; the sending is done by worker processes the spec
   * starts with `startWorker`, which read the configurations with the app's encryption key.
   */
  role?: 'api';
  /**
   * A database of the spec's own, named after the run's with this suffix and dropped after:
   * for specs whose workers must take only their own work, or that count what the whole
   * database holds.
   */
  database?: string;
  /**
   * Listen on a port chosen first and set PUBLIC_BASE_URL to it, so that what the app hands
   * out (the gateway's webhook, media links) reaches this very app.
   */
  publicBaseUrl?: boolean;
  /** The fake Evolution API to start, when the spec needs one built with options. */
  fake?: FakeEvolutionApi;
  /** Servers of the spec, started with the fake gateway and stopped after the app. */
  servers?: SideServer[];
  /** Companies registered before the tests: how many, or their names. */
  companies?: number | string[];
  /** After each test: the fake gateway was sent nothing the real Evolution API would refuse. */
  noRefusals?: boolean;
  /** After each test: the fake gateway forgets its instances, sends and scripts. */
  resetFake?: boolean;
}

export interface E2eFixture {
  /** The app; usable from the spec's own beforeAll on. */
  t: TestApp;
  fake: FakeEvolutionApi;
  /** SQL on the app's database, for assertions about what it stored. */
  pool: Pool;
  /** The companies of `options.companies`, registered before the tests. */
  companies: TestCompany[];
  /** A worker process on the app's database and key; stopped after the test that started it. */
  startWorker: (env?: Record<string, string>) => Promise<WorkerProcess>;
  /** Closes the app and starts a new one on the same port, database and environment. */
  restart: () => Promise<void>;
}

/**
 * The setup every end-to-end spec shares: the fake gateway and the spec's servers started, the
 * real app on the run's database (or one of its own) over HTTP, companies registered; all of
 * it stopped after the spec's tests. Registers its own beforeAll/afterAll (and afterEach) in
 * the describe block that calls it; the objects it answers stand for what beforeAll makes.
 */
export function useE2eFixture(options: E2eFixtureOptions = {}): E2eFixture {
  const run = new E2eRun(options);
  beforeAll(() => run.start());
  afterEach(() => run.afterTest());
  afterAll(() => run.stop());
  return {
    t: late('the app', () => run.app),
    fake: run.fake,
    pool: late('the pool', () => run.pool),
    companies: run.names.map((_name, i) => late(`company ${i}`, () => run.companies[i])),
    startWorker: (env) => run.startWorker(env),
    restart: async () => {
      await run.stopApp();
      await run.startApp();
    },
  };
}

/** What one fixture started, and how to stop it. */
class E2eRun {
  readonly fake: FakeEvolutionApi;
  readonly names: Array<string | undefined>;
  readonly companies: TestCompany[] = [];
  app?: TestApp;
  private database?: { url: string; drop(): Promise<void> };
  private ownPool?: Pool;
  private env: Record<string, string> = {};
  private port?: number;
  private readonly workers: WorkerProcess[] = [];
  private readonly apps: TestApp[] = [];

  constructor(private readonly options: E2eFixtureOptions) {
    this.fake = options.fake ?? new FakeEvolutionApi();
    this.names = companyNames(options.companies);
  }

  get pool(): Pool | undefined {
    return this.ownPool ?? (this.app && db());
  }

  async start(): Promise<void> {
    Logger.overrideLogger(false);
    if (this.options.database) {
      this.database = await createDedicatedDatabase(this.options.database);
      this.ownPool = sqlPool(this.database.url, 2);
    }
    await Promise.all([this.fake.start(), ...this.servers().map((server) => server.start())]);
    this.port = this.options.publicBaseUrl ? await freePort() : undefined;
    this.env = appEnv(this.options, this.port);
    const app = await this.startApp();
    for (const name of this.names) {
      this.companies.push(await TestCompany.register(app.http, name));
    }
  }

  async startApp(): Promise<TestApp> {
    this.app = await startAppOn(this.databaseUrl(), this.env, { port: this.port });
    this.apps.push(this.app);
    return this.app;
  }

  async stopApp(): Promise<void> {
    await this.app?.close();
    if (this.app) {
      rmSync(this.app.config.dataDir, { recursive: true, force: true });
    }
  }

  async startWorker(env: Record<string, string> = {}): Promise<WorkerProcess> {
    const worker = await startWorkerProcess({
      DATABASE_URL: this.databaseUrl(),
      ENCRYPTION_KEY: this.env.ENCRYPTION_KEY ?? SHARED_ENCRYPTION_KEY,
      ...env,
    });
    this.workers.push(worker);
    return worker;
  }

  async afterTest(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((worker) => worker.stop()));
    this.expectNoRefusals();
    if (this.options.resetFake) {
      this.fake.reset();
    }
  }

  async stop(): Promise<void> {
    await this.stopApp();
    await this.stopWorkLeftOnSharedDatabase();
    await Promise.all([this.fake.stop(), ...this.servers().map((server) => server.stop())]);
    await Promise.all([this.ownPool?.end(), closeDb()]);
    await this.database?.drop();
    this.expectNoRefusals();
  }

  /** Campaigns and automations of this spec's companies no other spec's app could send. */
  private async stopWorkLeftOnSharedDatabase(): Promise<void> {
    const companyIds = this.apps.flatMap((app) => companiesRegisteredThrough(app.http));
    if (this.database || companyIds.length === 0) {
      return;
    }
    await db().query(
      `UPDATE campaigns SET status = 'CANCELLED'
        WHERE company_id = ANY($1) AND status IN ('ACTIVE', 'SCHEDULED', 'PAUSED')`,
      [companyIds],
    );
    await db().query(`UPDATE automations SET is_active = false WHERE company_id = ANY($1)`, [
      companyIds,
    ]);
  }

  private databaseUrl(): string {
    return this.database?.url ?? testDatabaseUrl();
  }

  private servers(): SideServer[] {
    return this.options.servers ?? [];
  }

  private expectNoRefusals(): void {
    if (this.options.noRefusals) {
      expect(this.fake.refusals).toEqual([]);
    }
  }
}

function appEnv(options: E2eFixtureOptions, port: number | undefined): Record<string, string> {
  return {
    ...(options.role === 'api' ? { ROLE: 'api', ENCRYPTION_KEY: SHARED_ENCRYPTION_KEY } : {}),
    ...(port === undefined ? {} : { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }),
    ...(typeof options.env === 'function' ? options.env() : options.env),
  };
}

function companyNames(companies: number | string[] = 0): Array<string | undefined> {
  return typeof companies === 'number'
    ? Array.from({ length: companies }, () => undefined)
    : companies;
}

/**
 * Stands for the object `get` answers once beforeAll made it, so that a spec can name it at
 * the top of its describe block: every property read goes to that object.
 */
function late<T extends object>(what: string, get: () => T | undefined): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const real = get();
      if (!real) {
        throw new Error(`${what} is used before the e2e fixture's beforeAll ran`);
      }
      const value: unknown = Reflect.get(real, key, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
  });
}
