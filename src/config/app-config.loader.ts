import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppConfig, type RetentionDays, type S3Settings } from './app-config.service';
import { type EnvironmentVariables, parseTrustProxy, validateEnvironment } from './app-config';
import { type OutboundAllowedHost, parseOutboundAllowHosts } from './outbound-allow-hosts';

export interface GeneratedSecret {
  value: string;
  generatedNow: boolean;
}

/**
 * Reads a secret kept under DATA_DIR, creating it (mode 600) on first use, so that a
 * service started with no environment keeps the same admin password and encryption key
 * across restarts.
 */
export function readOrCreateSecret(
  dataDir: string,
  fileName: string,
  size: number,
): GeneratedSecret {
  const path = join(dataDir, fileName);
  if (existsSync(path)) {
    return { value: readFileSync(path, 'utf8').trim(), generatedNow: false };
  }
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(size).toString('base64url');
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return { value, generatedNow: true };
}

export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const vars = validateEnvironment(env);
  const dataDir = resolve(vars.DATA_DIR);
  const admin = vars.ADMIN_PASSWORD
    ? { value: vars.ADMIN_PASSWORD, generatedNow: false }
    : readOrCreateSecret(dataDir, 'admin-password', 24);
  const encryptionSecret =
    vars.ENCRYPTION_KEY ?? readOrCreateSecret(dataDir, 'encryption-key', 32).value;
  return new AppConfig({
    port: vars.PORT,
    dataDir,
    databaseUrl: vars.DATABASE_URL,
    adminPassword: admin.value,
    adminPasswordGeneratedNow: admin.generatedNow,
    adminPasswordFromFile: !vars.ADMIN_PASSWORD,
    encryptionKey: createHash('sha256').update(encryptionSecret).digest(),
    appTimezone: vars.APP_TIMEZONE,
    defaultCountryCode: vars.DEFAULT_COUNTRY_CODE,
    publicBaseUrl: (vars.PUBLIC_BASE_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ''),
    s3: s3SettingsOf(vars),
    redisUrl: vars.REDIS_URL,
    redisKeyPrefix: vars.REDIS_KEY_PREFIX,
    role: vars.ROLE,
    rateLimitPerMinute: vars.RATE_LIMIT_PER_MINUTE,
    rateLimitPerHour: vars.RATE_LIMIT_PER_HOUR,
    anonymousRateLimitPerMinute: vars.ANONYMOUS_RATE_LIMIT_PER_MINUTE,
    dispatchLeaseSeconds: vars.DISPATCH_LEASE_SECONDS,
    webhookRetryScheduleMs: vars.WEBHOOK_RETRY_SCHEDULE_MS,
    gatewaySendTimeoutMs: vars.GATEWAY_SEND_TIMEOUT_MS,
    reconcileDelaysMs: vars.RECONCILE_DELAYS_MS,
    trustProxy: parseTrustProxy(vars.TRUST_PROXY) ?? false,
    statementTimeoutMs: vars.STATEMENT_TIMEOUT_MS,
    workerStatementTimeoutMs: vars.WORKER_STATEMENT_TIMEOUT_MS,
    gatewaySyncMaxRows: vars.GATEWAY_SYNC_MAX_ROWS,
    retentionDays: retentionDaysOf(vars),
    webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    campaignCreationsPerHour: vars.CAMPAIGN_CREATIONS_PER_HOUR,
    defaultAutomationLimit: vars.DEFAULT_AUTOMATION_LIMIT,
    defaultDatabaseLimit: vars.DEFAULT_DATABASE_LIMIT,
    outboundDenyPrivate: vars.OUTBOUND_DENY_PRIVATE,
    outboundAllowHosts: allowHostsOf(vars.OUTBOUND_ALLOW_HOSTS),
    logLevel: vars.LOG_LEVEL,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
    metricsToken: vars.METRICS_TOKEN,
  });
}

/** Object storage when S3_BUCKET is set; local files otherwise. */
function s3SettingsOf(vars: EnvironmentVariables): S3Settings | undefined {
  return vars.S3_BUCKET
    ? {
        bucket: vars.S3_BUCKET,
        endpoint: vars.S3_ENDPOINT,
        region: vars.S3_REGION ?? 'us-east-1',
        accessKeyId: vars.S3_ACCESS_KEY_ID,
        secretAccessKey: vars.S3_SECRET_ACCESS_KEY,
        forcePathStyle: vars.S3_FORCE_PATH_STYLE,
        publicBaseUrl: vars.S3_PUBLIC_BASE_URL,
      }
    : undefined;
}

function retentionDaysOf(vars: EnvironmentVariables): RetentionDays {
  return {
    webhookDeliveries: vars.RETENTION_WEBHOOK_DELIVERIES_DAYS,
    outboxEvents: vars.RETENTION_OUTBOX_EVENTS_DAYS,
    notices: vars.RETENTION_NOTICES_DAYS,
    automationRuns: vars.RETENTION_AUTOMATION_RUNS_DAYS,
    loginFailures: vars.RETENTION_LOGIN_FAILURES_DAYS,
    importJobs: vars.RETENTION_IMPORT_JOBS_DAYS,
  };
}

/** Validated already (validateEnvironment); an unparsable value never gets here. */
function allowHostsOf(raw: string): OutboundAllowedHost[] {
  const entries = parseOutboundAllowHosts(raw);
  return typeof entries === 'string' ? [] : entries;
}
