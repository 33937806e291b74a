import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  InvalidConfigurationError,
  validateEnvironment,
} from './app-config';
import { parseOutboundAllowHosts } from './outbound-allow-hosts';
import { loadAppConfig, readOrCreateSecret } from './app-config.loader';

describe('validateEnvironment', () => {
  it('applies the defaults of the configuration table (docs/OPERATIONS.md) to an empty environment', () => {
    const vars = validateEnvironment({});
    expect(vars).toMatchObject({
      PORT: 3000,
      DATA_DIR: './.data',
      APP_TIMEZONE: 'America/Sao_Paulo',
      DEFAULT_COUNTRY_CODE: 55,
      ROLE: 'all',
      RATE_LIMIT_PER_MINUTE: 60,
      RATE_LIMIT_PER_HOUR: 1000,
      CAMPAIGN_CREATIONS_PER_HOUR: 10,
      DEFAULT_AUTOMATION_LIMIT: 10,
      DEFAULT_DATABASE_LIMIT: 20,
      OUTBOUND_DENY_PRIVATE: false,
      S3_FORCE_PATH_STYLE: false,
      LOG_LEVEL: 'info',
      ANONYMOUS_RATE_LIMIT_PER_MINUTE: 100,
      REDIS_KEY_PREFIX: 'campaign-service:',
      DISPATCH_LEASE_SECONDS: 120,
      WEBHOOK_RETRY_SCHEDULE_MS: DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
      WEBHOOK_TIMEOUT_MS: 10_000,
      SHUTDOWN_GRACE_MS: 25_000,
    });
    expect(vars.DATABASE_URL).toBeUndefined();
    expect(vars.ADMIN_PASSWORD).toBeUndefined();
    expect(vars.REDIS_URL).toBeUndefined();
    expect(vars.S3_BUCKET).toBeUndefined();
    expect(vars.ENCRYPTION_KEY).toBeUndefined();
  });

  it('converts numbers and booleans written as text, and treats empty values as unset', () => {
    const vars = validateEnvironment({
      PORT: ' 8080 ',
      RATE_LIMIT_PER_MINUTE: '5',
      OUTBOUND_DENY_PRIVATE: 'TRUE',
      S3_FORCE_PATH_STYLE: '1',
      DATABASE_URL: '',
      REDIS_URL: '  ',
      ROLE: 'worker',
      APP_TIMEZONE: 'Europe/Lisbon',
      LOG_LEVEL: 'debug',
    });
    expect(vars.PORT).toBe(8080);
    expect(vars.RATE_LIMIT_PER_MINUTE).toBe(5);
    expect(vars.OUTBOUND_DENY_PRIVATE).toBe(true);
    expect(vars.S3_FORCE_PATH_STYLE).toBe(true);
    expect(vars.DATABASE_URL).toBeUndefined();
    expect(vars.REDIS_URL).toBeUndefined();
    expect(vars.ROLE).toBe('worker');
    expect(vars.APP_TIMEZONE).toBe('Europe/Lisbon');
    expect(vars.LOG_LEVEL).toBe('debug');
  });

  it('retries a webhook at growing intervals for 24 hours by default', () => {
    const schedule = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS;
    expect(schedule.reduce((a, b) => a + b, 0)).toBe(24 * 60 * 60 * 1000);
    expect(schedule.every((delay, i) => i === 0 || delay >= schedule[i - 1])).toBe(true);
  });

  it('reads the webhook retry schedule as a list of waits, "none" as no retry, and empty values as the defaults', () => {
    const vars = validateEnvironment({
      WEBHOOK_RETRY_SCHEDULE_MS: ' 200, 500 ,1000',
      WEBHOOK_TIMEOUT_MS: ' 2000 ',
    });
    expect(vars.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([200, 500, 1000]);
    expect(vars.WEBHOOK_TIMEOUT_MS).toBe(2000);
    expect(
      validateEnvironment({ WEBHOOK_RETRY_SCHEDULE_MS: 'None' }).WEBHOOK_RETRY_SCHEDULE_MS,
    ).toEqual([]);
    const empty = validateEnvironment({ WEBHOOK_RETRY_SCHEDULE_MS: ' ', WEBHOOK_TIMEOUT_MS: '' });
    expect(empty.WEBHOOK_RETRY_SCHEDULE_MS).toEqual(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS);
    expect(empty.WEBHOOK_TIMEOUT_MS).toBe(10_000);
  });

  it('ignores variables that are not part of the run contract', () => {
    expect(() =>
      validateEnvironment({ HOME: '/root', PATH: '/usr/bin', SOMETHING_ELSE: 'x' }),
    ).not.toThrow();
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '1.5'],
    ['ROLE', 'boss'],
    ['APP_TIMEZONE', 'Mars/Base'],
    ['RATE_LIMIT_PER_MINUTE', '0'],
    ['RATE_LIMIT_PER_HOUR', '-5'],
    ['ANONYMOUS_RATE_LIMIT_PER_MINUTE', 'many'],
    ['CAMPAIGN_CREATIONS_PER_HOUR', '0'],
    ['DEFAULT_AUTOMATION_LIMIT', '-1'],
    ['DEFAULT_COUNTRY_CODE', '0'],
    ['LOG_LEVEL', 'loud'],
    ['OUTBOUND_DENY_PRIVATE', 'maybe'],
    ['S3_FORCE_PATH_STYLE', 'sometimes'],
    ['ADMIN_PASSWORD', 'short'],
    ['ENCRYPTION_KEY', 'too-short'],
    ['PUBLIC_BASE_URL', 'not a url'],
    ['DATA_DIR', ''],
    ['DISPATCH_LEASE_SECONDS', '1'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '10s'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '100,,200'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '0'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '-5'],
    ['WEBHOOK_TIMEOUT_MS', '50'],
    ['WEBHOOK_TIMEOUT_MS', '60001'],
    ['WEBHOOK_TIMEOUT_MS', '1.5'],
    ['SHUTDOWN_GRACE_MS', '50'],
    ['SHUTDOWN_GRACE_MS', '25s'],
  ])('refuses %s=%j with an InvalidConfigurationError naming the variable', (name, value) => {
    let thrown: unknown;
    try {
      validateEnvironment({ [name]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidConfigurationError);
    expect((thrown as Error).message).toContain(`${name}=${JSON.stringify(value)}`);
  });

  it('reads OUTBOUND_ALLOW_HOSTS as host names and addresses, each optionally with a port', () => {
    const vars = validateEnvironment({
      OUTBOUND_DENY_PRIVATE: 'true',
      OUTBOUND_ALLOW_HOSTS:
        ' Evolution-API , evolution_api:8080, 10.0.0.5:8080, [0:0::1]:443, fd00::7 ',
    });
    expect(parseOutboundAllowHosts(vars.OUTBOUND_ALLOW_HOSTS)).toEqual([
      { host: 'evolution-api' },
      { host: 'evolution_api', port: 8080 },
      { host: '10.0.0.5', port: 8080 },
      { host: '::1', port: 443 },
      { host: 'fd00::7' },
    ]);
  });

  it.each([
    ['http://evolution-api:8080', 'host or host:port'],
    ['evolution-api/path', 'host or host:port'],
    ['evolution-api:0', 'port outside'],
    ['evolution-api:70000', 'port outside'],
    ['gw,,other', 'host or host:port'],
    ['[evolution-api]:80', 'host or host:port'],
    ['10.0.0', 'IPv4'],
    ['bad..name', 'host name'],
    ['169.254.169.254', 'never called'],
    ['[fe80::1]:80', 'never called'],
  ])('refuses OUTBOUND_ALLOW_HOSTS=%j at start, saying why', (value, why) => {
    expect(() =>
      validateEnvironment({ OUTBOUND_DENY_PRIVATE: 'true', OUTBOUND_ALLOW_HOSTS: value }),
    ).toThrow(new RegExp(`OUTBOUND_ALLOW_HOSTS=.*${why}`));
  });

  it('refuses OUTBOUND_ALLOW_HOSTS without OUTBOUND_DENY_PRIVATE, where it would do nothing', () => {
    expect(() => validateEnvironment({ OUTBOUND_ALLOW_HOSTS: 'evolution-api' })).toThrow(
      /OUTBOUND_ALLOW_HOSTS="evolution-api": only takes effect with OUTBOUND_DENY_PRIVATE=true/,
    );
  });

  it('names every bad variable at once', () => {
    expect(() => validateEnvironment({ PORT: 'abc', ROLE: 'boss', LOG_LEVEL: 'loud' })).toThrow(
      /PORT="abc"[\s\S]*ROLE="boss"[\s\S]*LOG_LEVEL="loud"/,
    );
  });
});

describe('loadAppConfig', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'app-config-spec-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('builds the typed configuration from the environment, with the system defaults', () => {
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'admin-password-1',
      PORT: '4000',
    });
    expect(config).toMatchObject({
      port: 4000,
      dataDir: resolve(dataDir),
      adminPassword: 'admin-password-1',
      adminPasswordGeneratedNow: false,
      adminPasswordFromFile: false,
      appTimezone: 'America/Sao_Paulo',
      defaultCountryCode: 55,
      publicBaseUrl: 'http://localhost:4000',
      role: 'all',
      rateLimitPerMinute: 60,
      rateLimitPerHour: 1000,
      anonymousRateLimitPerMinute: 100,
      campaignCreationsPerHour: 10,
      defaultAutomationLimit: 10,
      defaultDatabaseLimit: 20,
      outboundDenyPrivate: false,
      outboundAllowHosts: [],
      logLevel: 'info',
      redisKeyPrefix: 'campaign-service:',
      dispatchLeaseSeconds: 120,
      webhookRetryScheduleMs: DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
      webhookTimeoutMs: 10_000,
      gatewaySendTimeoutMs: 30_000,
      reconcileDelaysMs: [30_000, 120_000, 600_000],
      trustProxy: false,
      statementTimeoutMs: 30_000,
      workerStatementTimeoutMs: 600_000,
      gatewaySyncMaxRows: 200_000,
      shutdownGraceMs: 25_000,
      retentionDays: {
        webhookDeliveries: 30,
        outboxEvents: 7,
        notices: 90,
        automationRuns: 90,
        loginFailures: 1,
        importJobs: 30,
      },
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.s3).toBeUndefined();
    expect(config.runsHttp).toBe(true);
    expect(config.runsWorkers).toBe(true);
    expect(config.encryptionKey).toHaveLength(32);
  });

  it.each([
    ['false', false],
    ['', false],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['loopback, 10.0.0.0/8, fd00::/8', ['loopback', '10.0.0.0/8', 'fd00::/8']],
  ])('reads TRUST_PROXY=%j', (raw, expected) => {
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'admin-password-1',
      TRUST_PROXY: raw,
    });
    expect(config.trustProxy).toEqual(expected);
  });

  it.each(['true', 'balancer', '10.0.0.0/40', '10.0.0.1/8/2'])(
    'refuses TRUST_PROXY=%j, naming it',
    (raw) => {
      expect(() =>
        loadAppConfig({ DATA_DIR: dataDir, ADMIN_PASSWORD: 'admin-password-1', TRUST_PROXY: raw }),
      ).toThrow(/TRUST_PROXY/);
    },
  );

  it('derives the roles: api serves HTTP only, worker runs the background work only', () => {
    const api = loadAppConfig({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'admin-password-1',
      ROLE: 'api',
    });
    expect([api.runsHttp, api.runsWorkers]).toEqual([true, false]);
    const worker = loadAppConfig({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'admin-password-1',
      ROLE: 'worker',
    });
    expect([worker.runsHttp, worker.runsWorkers]).toEqual([false, true]);
  });

  it('strips trailing slashes from PUBLIC_BASE_URL and reads the S3 settings when S3_BUCKET is set', () => {
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'admin-password-1',
      PUBLIC_BASE_URL: 'https://media.example.com.br//',
      S3_BUCKET: 'midias',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(config.publicBaseUrl).toBe('https://media.example.com.br');
    expect(config.s3).toMatchObject({
      bucket: 'midias',
      region: 'us-east-1',
      forcePathStyle: true,
    });
  });

  it('generates the admin password and encryption key once, in DATA_DIR with mode 600, and reuses them', () => {
    const first = loadAppConfig({ DATA_DIR: dataDir });
    expect(first.adminPasswordGeneratedNow).toBe(true);
    expect(first.adminPasswordFromFile).toBe(true);
    expect(first.adminPassword).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (const file of ['admin-password', 'encryption-key']) {
      expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(join(dataDir, 'admin-password'), 'utf8').trim()).toBe(first.adminPassword);
    const keyFile = readFileSync(join(dataDir, 'encryption-key'), 'utf8').trim();
    expect(first.encryptionKey.equals(createHash('sha256').update(keyFile).digest())).toBe(true);

    const second = loadAppConfig({ DATA_DIR: dataDir });
    expect(second.adminPasswordGeneratedNow).toBe(false);
    expect(second.adminPassword).toBe(first.adminPassword);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
  });

  it('creates DATA_DIR when it does not exist yet', () => {
    const nested = join(dataDir, 'a', 'b');
    const config = loadAppConfig({ DATA_DIR: nested });
    expect(readFileSync(join(nested, 'admin-password'), 'utf8').trim()).toBe(config.adminPassword);
  });

  it('uses ADMIN_PASSWORD and ENCRYPTION_KEY from the environment without writing any file', () => {
    const config = loadAppConfig({
      DATA_DIR: dataDir,
      ADMIN_PASSWORD: 'from-the-environment',
      ENCRYPTION_KEY: 'a-long-enough-encryption-key',
    });
    expect(config.adminPassword).toBe('from-the-environment');
    expect(
      config.encryptionKey.equals(
        createHash('sha256').update('a-long-enough-encryption-key').digest(),
      ),
    ).toBe(true);
    expect(() => statSync(join(dataDir, 'admin-password'))).toThrow();
    expect(() => statSync(join(dataDir, 'encryption-key'))).toThrow();
  });

  it('throws before writing anything when a variable is invalid', () => {
    expect(() => loadAppConfig({ DATA_DIR: dataDir, PORT: 'abc' })).toThrow(
      InvalidConfigurationError,
    );
    expect(() => statSync(join(dataDir, 'admin-password'))).toThrow();
  });
});

describe('readOrCreateSecret', () => {
  it('reads an existing secret without its trailing newline and does not replace it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-spec-'));
    try {
      writeFileSync(join(dir, 'token'), 'kept-value\n');
      expect(readOrCreateSecret(dir, 'token', 16)).toEqual({
        value: 'kept-value',
        generatedNow: false,
      });
      expect(readFileSync(join(dir, 'token'), 'utf8')).toBe('kept-value\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
