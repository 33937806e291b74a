import { INestApplication, Logger } from '@nestjs/common';
import type { Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Document } from 'openapi-backend';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { loadAppConfig } from '../../src/config/app-config.loader';
import type { AppConfig } from '../../src/config/app-config.service';
import { runMigrations } from '../../src/database/migrate';
import { buildOpenApiDocument } from '../../src/common/http/openapi-document';
import { ResponseRecorder } from './response-conformance';

export const ADMIN_PASSWORD = 'test-admin-password-0123';
export const ADMIN_HEADER = { ACCESS_TOKEN: `Bearer ${ADMIN_PASSWORD}` };

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url || !/test/.test(new URL(url).pathname)) {
    throw new Error(
      `Refusing to run against a database whose name lacks "test": ${url ?? '(unset)'}`,
    );
  }
  return url;
}

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  http: TestAgent;
  baseUrl: string;
  /** The database the app runs on. */
  databaseUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Listen on this port instead of a free one (e.g. one chosen first to build PUBLIC_BASE_URL). */
  port?: number;
}

/** The real application over real HTTP on 127.0.0.1, against the run's test database. */
export async function startTestApp(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  return startAppOn(testDatabaseUrl(), env, options);
}

/** Like startTestApp, but on the given database (e.g. one from createDedicatedDatabase). */
export async function startAppOn(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const config = loadAppConfig({
    DATA_DIR: mkdtempSync(join(tmpdir(), 'campaign-service-e2e-')),
    ADMIN_PASSWORD,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '100000',
    RATE_LIMIT_PER_HOUR: '1000000',
    ANONYMOUS_RATE_LIMIT_PER_MINUTE: '100000',
    ...env,
  });
  Logger.overrideLogger(false);
  await runMigrations(databaseUrl);
  const app = await createApp(config, databaseUrl);
  const server = app.getHttpServer() as Server;
  const recorder = new ResponseRecorder(server);
  await app.listen(options.port ?? 0, '127.0.0.1');
  const baseUrl = await app.getUrl();
  const http = request(server);
  // The document /api/docs-json serves, built as it builds it: fetching it would spend a
  // request of the per-IP budget that the rate-limit specs count.
  await recorder.loadDescription(buildOpenApiDocument(app) as Document);
  return {
    app,
    config,
    http,
    baseUrl: baseUrl.replace('[::1]', '127.0.0.1'),
    databaseUrl,
    close: () => app.close(),
  };
}

let counter = 0;
/**
 * The companies registered through each app's agent: every test app opens secrets with a key
 * of its own, so what one spec leaves running on the shared database must be stopped when the
 * spec ends, or another spec's app takes it up and fails to open its gateway key.
 */
const companiesRegistered = new WeakMap<TestAgent, number[]>();

export function companiesRegisteredThrough(http: TestAgent): number[] {
  return companiesRegistered.get(http) ?? [];
}

export function uniqueEmail(prefix = 'empresa'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}@teste.com.br`;
}

/** A registered company and its token. */
export class TestCompany {
  private constructor(
    readonly id: number,
    readonly email: string,
    readonly password: string,
    readonly token: string,
    private readonly http: TestAgent,
  ) {}

  static async register(http: TestAgent, name?: string): Promise<TestCompany> {
    const email = uniqueEmail();
    const password = 'senha-segura-1';
    const response = await http
      .post('/api/auth/register')
      .set(ADMIN_HEADER)
      .send({ name: name ?? 'Empresa de Teste', email, password })
      .expect(200);
    const body = response.body as { companyId: number; accessToken: string };
    companiesRegistered.set(http, [...companiesRegisteredThrough(http), body.companyId]);
    return new TestCompany(body.companyId, email, password, body.accessToken, http);
  }

  get auth(): Record<string, string> {
    return { 'X-Access-Token': this.token };
  }

  get(path: string): request.Test {
    return this.http.get(path).set(this.auth);
  }

  post(path: string, body?: unknown): request.Test {
    return this.http
      .post(path)
      .set(this.auth)
      .send(body as object);
  }

  put(path: string, body?: unknown): request.Test {
    return this.http
      .put(path)
      .set(this.auth)
      .send(body as object);
  }

  patch(path: string, body?: unknown): request.Test {
    return this.http
      .patch(path)
      .set(this.auth)
      .send(body as object);
  }

  delete(path: string): request.Test {
    return this.http.delete(path).set(this.auth);
  }
}
