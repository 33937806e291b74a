import type { Role, TrustProxy } from './app-config';
import type { OutboundAllowedHost } from './outbound-allow-hosts';

export interface S3Settings {
  bucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  publicBaseUrl?: string;
}

export interface AppConfigValues {
  port: number;
  dataDir: string;
  databaseUrl?: string;
  adminPassword: string;
  adminPasswordGeneratedNow: boolean;
  adminPasswordFromFile: boolean;
  encryptionKey: Buffer;
  appTimezone: string;
  defaultCountryCode: number;
  publicBaseUrl: string;
  s3?: S3Settings;
  redisUrl?: string;
  redisKeyPrefix: string;
  role: Role;
  rateLimitPerMinute: number;
  rateLimitPerHour: number;
  anonymousRateLimitPerMinute: number;
  dispatchLeaseSeconds: number;
  webhookRetryScheduleMs: readonly number[];
  webhookTimeoutMs: number;
  gatewaySendTimeoutMs: number;
  reconcileDelaysMs: readonly number[];
  trustProxy: TrustProxy;
  statementTimeoutMs: number;
  workerStatementTimeoutMs: number;
  gatewaySyncMaxRows: number;
  retentionDays: RetentionDays;
  campaignCreationsPerHour: number;
  defaultAutomationLimit: number;
  defaultDatabaseLimit: number;
  outboundDenyPrivate: boolean;
  /** Hosts OUTBOUND_ALLOW_HOSTS lets reach loopback and private addresses despite the deny. */
  outboundAllowHosts: readonly OutboundAllowedHost[];
  logLevel: string;
  shutdownGraceMs: number;
  /** Bearer token GET /actuator/prometheus requires; undefined: the route is public. */
  metricsToken?: string;
}

/** Typed, validated configuration; also its own DI token. */
export class AppConfig implements AppConfigValues {
  readonly port!: number;
  readonly dataDir!: string;
  readonly databaseUrl?: string;
  readonly adminPassword!: string;
  readonly adminPasswordGeneratedNow!: boolean;
  readonly adminPasswordFromFile!: boolean;
  readonly encryptionKey!: Buffer;
  readonly appTimezone!: string;
  readonly defaultCountryCode!: number;
  readonly publicBaseUrl!: string;
  readonly s3?: S3Settings;
  readonly redisUrl?: string;
  readonly redisKeyPrefix!: string;
  readonly role!: Role;
  readonly rateLimitPerMinute!: number;
  readonly rateLimitPerHour!: number;
  readonly anonymousRateLimitPerMinute!: number;
  readonly dispatchLeaseSeconds!: number;
  readonly webhookRetryScheduleMs!: readonly number[];
  readonly webhookTimeoutMs!: number;
  readonly gatewaySendTimeoutMs!: number;
  readonly reconcileDelaysMs!: readonly number[];
  readonly trustProxy!: TrustProxy;
  readonly statementTimeoutMs!: number;
  readonly workerStatementTimeoutMs!: number;
  readonly gatewaySyncMaxRows!: number;
  readonly retentionDays!: RetentionDays;
  readonly campaignCreationsPerHour!: number;
  readonly defaultAutomationLimit!: number;
  readonly defaultDatabaseLimit!: number;
  readonly outboundDenyPrivate!: boolean;
  readonly outboundAllowHosts!: readonly OutboundAllowedHost[];
  readonly logLevel!: string;
  readonly shutdownGraceMs!: number;
  readonly metricsToken?: string;

  constructor(values: AppConfigValues) {
    Object.assign(this, values);
  }

  get runsHttp(): boolean {
    return this.role !== 'worker';
  }

  get runsWorkers(): boolean {
    return this.role !== 'api';
  }
}

/** How many days finished rows of each growing table are kept (RETENTION_*_DAYS). */
export interface RetentionDays {
  webhookDeliveries: number;
  outboxEvents: number;
  notices: number;
  automationRuns: number;
  loginFailures: number;
  importJobs: number;
}
