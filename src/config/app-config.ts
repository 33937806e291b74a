import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
  ValidationError,
  validateSync,
} from 'class-validator';
import { IANAZone } from 'luxon';
import { isIP } from 'node:net';
import { parseOutboundAllowHosts } from './outbound-allow-hosts';

const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') {
    return value;
  }
  const v = value.trim().toLowerCase();
  return v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : value;
};
const emptyToUndefined = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
/** Like toInt, but an empty value takes the default, as the WEBHOOK_* variables always did. */
const toIntOr =
  (fallback: number) =>
  ({ value }: { value: unknown }): unknown =>
    typeof value === 'string' && value.trim() === '' ? fallback : toInt({ value });
/**
 * `none` (an empty list) or comma-separated positive integers; anything else stays the raw
 * text, which @IsArray then refuses. An empty value means the default.
 */
const toPositiveIntList =
  (fallback: readonly number[]) =>
  ({ value }: { value: unknown }): unknown => {
    if (typeof value !== 'string') {
      return value;
    }
    const text = value.trim();
    if (text === '') {
      return [...fallback];
    }
    if (text.toLowerCase() === 'none') {
      return [];
    }
    const parts = text.split(',').map((part) => part.trim());
    return parts.every((part) => /^\d{1,10}$/.test(part) && Number(part) > 0)
      ? parts.map(Number)
      : value;
  };

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits after the 1st, 2nd, … failed webhook attempt; growing, and adding up to 24 hours: the
 * 11th and last attempt comes 24 h after the first, then the delivery is FAILED.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [
  10 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  8 * HOUR + 17 * MINUTE + 20 * SECOND,
];
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10 * SECOND;
/** The gateway answers a send only after WhatsApp took it (an upload of a video included). */
export const DEFAULT_GATEWAY_SEND_TIMEOUT_MS = 30 * SECOND;
/**
 * When the gateway's message store is asked about a send whose outcome is unknown, counted
 * from that send: the gateway may still be uploading or waiting on WhatsApp at the first look.
 */
export const DEFAULT_RECONCILE_DELAYS_MS: readonly number[] = [
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
];

export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The run contract of the service (docs/OPERATIONS.md, "Configuration"). Every environment
 * variable the service reads is a field here; nothing else reads process.env.
 * Property names equal the variable names so that validation errors name the variable.
 */
export class EnvironmentVariables {
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  @Transform(emptyToUndefined) @IsOptional() @IsString() DATABASE_URL?: string;
  @IsString() @MinLength(1) DATA_DIR = './.data';
  @Transform(emptyToUndefined) @IsOptional() @IsString() @MinLength(8) ADMIN_PASSWORD?: string;
  @IsString() APP_TIMEZONE = 'America/Sao_Paulo';
  @Transform(toInt) @IsInt() @Min(1) @Max(999) DEFAULT_COUNTRY_CODE = 55;
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PUBLIC_BASE_URL?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() S3_BUCKET?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() S3_ENDPOINT?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() S3_REGION?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() S3_ACCESS_KEY_ID?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() S3_SECRET_ACCESS_KEY?: string;
  @Transform(toBool) @IsBoolean() S3_FORCE_PATH_STYLE = false;
  @Transform(emptyToUndefined) @IsOptional() @IsString() S3_PUBLIC_BASE_URL?: string;
  @Transform(emptyToUndefined) @IsOptional() @IsString() REDIS_URL?: string;
  /**
   * Prefix of every Redis key. Counters are keyed by company id, and
   * company ids are only unique within one database, so deployments (or test runs) with different
   * databases that share one Redis need different prefixes.
   */
  @IsString() @MinLength(1) REDIS_KEY_PREFIX = 'campaign-service:';
  @IsIn(ROLES) ROLE: Role = 'all';
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_PER_MINUTE = 60;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_PER_HOUR = 1000;
  @Transform(toInt) @IsInt() @Min(1) CAMPAIGN_CREATIONS_PER_HOUR = 10;
  @Transform(toInt) @IsInt() @Min(0) DEFAULT_AUTOMATION_LIMIT = 10;
  @Transform(toInt) @IsInt() @Min(0) DEFAULT_DATABASE_LIMIT = 20;
  @Transform(emptyToUndefined) @IsOptional() @IsString() @MinLength(16) ENCRYPTION_KEY?: string;
  @Transform(toBool) @IsBoolean() OUTBOUND_DENY_PRIVATE = false;
  /**
   * Hosts (names or addresses, optionally `:port`) that may still be called on a loopback or
   * private address with OUTBOUND_DENY_PRIVATE=true: the gateway's, e.g. `evolution-api:8080`.
   */
  @IsString() OUTBOUND_ALLOW_HOSTS = '';
  @IsIn(LOG_LEVELS) LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';
  /** Requests per minute per client IP on routes without a company token. */
  @Transform(toInt) @IsInt() @Min(1) ANONYMOUS_RATE_LIMIT_PER_MINUTE = 100;
  /**
   * How long a worker holds a campaign while sending one message. Longer
   * than a send can take (gateway timeout 30 s, a voice note plus its text); after a crash,
   * another worker takes the campaign over when it runs out.
   */
  @Transform(toInt) @IsInt() @Min(2) @Max(3600) DISPATCH_LEASE_SECONDS = 120;
  /**
   * Tests and benchmarks cannot wait hours: waits between webhook
   * attempts in ms, e.g. `200,500` (three attempts); `none` means one attempt only.
   */
  @Transform(toPositiveIntList(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS))
  @IsArray({
    message: '$property must be "none" or comma-separated positive integers (milliseconds)',
  })
  WEBHOOK_RETRY_SCHEDULE_MS: number[] = [...DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS];
  /** Budget of one webhook POST (connect, send, read the answer). */
  @Transform(toIntOr(DEFAULT_WEBHOOK_TIMEOUT_MS))
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS = DEFAULT_WEBHOOK_TIMEOUT_MS;
  /** Budget of one message send to the gateway, after which its outcome is unknown. */
  @Transform(toIntOr(DEFAULT_GATEWAY_SEND_TIMEOUT_MS))
  @IsInt()
  @Min(200)
  @Max(600_000)
  GATEWAY_SEND_TIMEOUT_MS = DEFAULT_GATEWAY_SEND_TIMEOUT_MS;
  /**
   * Waits (ms, after the send) before each look into the gateway's message store for a send
   * whose outcome is unknown; not found after the last one, the contact is FAILED.
   */
  @Transform(toPositiveIntList(DEFAULT_RECONCILE_DELAYS_MS))
  @IsArray({ message: '$property must be comma-separated positive integers (milliseconds)' })
  @ArrayMinSize(1, { message: '$property needs at least one delay' })
  RECONCILE_DELAYS_MS: number[] = [...DEFAULT_RECONCILE_DELAYS_MS];
  /**
   * Which X-Forwarded-For hops are believed for the client's address (rate limits, the login
   * lock, logs): `false` (none, the default), a hop count, or comma-separated addresses/CIDRs
   * of the proxies (`loopback`, `uniquelocal` and `linklocal` name their ranges).
   */
  @IsString() TRUST_PROXY = 'false';
  /** Longest an API request's query may run before the request answers 503. */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000) STATEMENT_TIMEOUT_MS = 30_000;
  /** Longest a background job's query may run (imports, syncs and retention run long ones). */
  @Transform(toInt) @IsInt() @Min(100) @Max(86_400_000) WORKER_STATEMENT_TIMEOUT_MS = 600_000;
  /** Rows (contacts, chats, group participants) one gateway sync may read before it gives up. */
  @Transform(toInt) @IsInt() @Min(1) @Max(10_000_000) GATEWAY_SYNC_MAX_ROWS = 200_000;
  /** Days finished rows are kept before the hourly retention job deletes them. */
  @Transform(toInt) @IsInt() @Min(1) @Max(3650) RETENTION_WEBHOOK_DELIVERIES_DAYS = 30;
  @Transform(toInt) @IsInt() @Min(1) @Max(3650) RETENTION_OUTBOX_EVENTS_DAYS = 7;
  @Transform(toInt) @IsInt() @Min(1) @Max(3650) RETENTION_NOTICES_DAYS = 90;
  @Transform(toInt) @IsInt() @Min(1) @Max(3650) RETENTION_AUTOMATION_RUNS_DAYS = 90;
  @Transform(toInt) @IsInt() @Min(1) @Max(3650) RETENTION_LOGIN_FAILURES_DAYS = 1;
  @Transform(toInt) @IsInt() @Min(1) @Max(3650) RETENTION_IMPORT_JOBS_DAYS = 30;
  /**
   * How long a stop (SIGTERM, SIGINT) may take to finish the work in hand: under the 30 s
   * Kubernetes and Docker give before SIGKILL, so the process exits on its own terms.
   */
  @Transform(toInt) @IsInt() @Min(100) @Max(3_600_000) SHUTDOWN_GRACE_MS = 25_000;
  /**
   * When set, GET /actuator/prometheus answers only `Authorization: Bearer <METRICS_TOKEN>`;
   * unset, it is public like the rest of /actuator.
   */
  @Transform(emptyToUndefined) @IsOptional() @IsString() @MinLength(16) METRICS_TOKEN?: string;
}

/** TRUST_PROXY as Express's "trust proxy" setting: false, a hop count, or proxy addresses. */
export type TrustProxy = false | number | string[];

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

export function parseTrustProxy(raw: string): TrustProxy | null {
  const text = raw.trim().toLowerCase();
  if (text === '' || text === 'false' || text === '0') {
    return false;
  }
  if (/^\d{1,2}$/.test(text)) {
    return Number(text);
  }
  const items = text.split(',').map((item) => item.trim());
  const valid = items.every((item) => {
    if (PROXY_RANGE_NAMES.includes(item)) {
      return true;
    }
    const [address, bits, extra] = item.split('/');
    const family = isIP(address);
    return (
      family !== 0 &&
      extra === undefined &&
      (bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)))
    );
  });
  return valid && items.length > 0 ? items : null;
}

export class InvalidConfigurationError extends Error {}

export const ENVIRONMENT_VARIABLE_NAMES: readonly (keyof EnvironmentVariables)[] = [
  'PORT',
  'DATABASE_URL',
  'DATA_DIR',
  'ADMIN_PASSWORD',
  'APP_TIMEZONE',
  'DEFAULT_COUNTRY_CODE',
  'PUBLIC_BASE_URL',
  'S3_BUCKET',
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'S3_PUBLIC_BASE_URL',
  'REDIS_URL',
  'REDIS_KEY_PREFIX',
  'ROLE',
  'RATE_LIMIT_PER_MINUTE',
  'RATE_LIMIT_PER_HOUR',
  'CAMPAIGN_CREATIONS_PER_HOUR',
  'DEFAULT_AUTOMATION_LIMIT',
  'DEFAULT_DATABASE_LIMIT',
  'ENCRYPTION_KEY',
  'OUTBOUND_DENY_PRIVATE',
  'OUTBOUND_ALLOW_HOSTS',
  'LOG_LEVEL',
  'ANONYMOUS_RATE_LIMIT_PER_MINUTE',
  'DISPATCH_LEASE_SECONDS',
  'WEBHOOK_RETRY_SCHEDULE_MS',
  'WEBHOOK_TIMEOUT_MS',
  'GATEWAY_SEND_TIMEOUT_MS',
  'RECONCILE_DELAYS_MS',
  'TRUST_PROXY',
  'STATEMENT_TIMEOUT_MS',
  'WORKER_STATEMENT_TIMEOUT_MS',
  'GATEWAY_SYNC_MAX_ROWS',
  'RETENTION_WEBHOOK_DELIVERIES_DAYS',
  'RETENTION_OUTBOX_EVENTS_DAYS',
  'RETENTION_NOTICES_DAYS',
  'RETENTION_AUTOMATION_RUNS_DAYS',
  'RETENTION_LOGIN_FAILURES_DAYS',
  'RETENTION_IMPORT_JOBS_DAYS',
  'SHUTDOWN_GRACE_MS',
  'METRICS_TOKEN',
];

export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const relevant: Record<string, string> = {};
  for (const key of ENVIRONMENT_VARIABLE_NAMES) {
    const value = env[key];
    if (value !== undefined) {
      relevant[key] = value;
    }
  }
  const config = plainToInstance(EnvironmentVariables, relevant);
  const errors = [
    ...validateSync(config, { skipMissingProperties: false }),
    ...refusalsBeyondDecorators(config),
  ];
  if (errors.length > 0) {
    const lines = errors.map(
      (e) =>
        `${e.property}=${JSON.stringify(relevant[e.property] ?? null)}: ${Object.values(e.constraints ?? {}).join('; ')}`,
    );
    throw new InvalidConfigurationError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return config;
}

/** What the decorators cannot check: the forms of TRUST_PROXY and OUTBOUND_ALLOW_HOSTS, the zone. */
function refusalsBeyondDecorators(config: EnvironmentVariables): ValidationError[] {
  const refusals: ValidationError[] = [];
  if (parseTrustProxy(config.TRUST_PROXY) === null) {
    refusals.push(
      refusal(
        'TRUST_PROXY',
        'isTrustProxy',
        'must be false, a hop count, or comma-separated proxy addresses/CIDRs (loopback, uniquelocal, linklocal allowed)',
      ),
    );
  }
  const allowHosts = parseOutboundAllowHosts(config.OUTBOUND_ALLOW_HOSTS);
  if (typeof allowHosts === 'string') {
    refusals.push(
      refusal(
        'OUTBOUND_ALLOW_HOSTS',
        'isAllowList',
        `must be comma-separated host or host:port entries: ${allowHosts}`,
      ),
    );
  } else if (allowHosts.length > 0 && !config.OUTBOUND_DENY_PRIVATE) {
    refusals.push(
      refusal(
        'OUTBOUND_ALLOW_HOSTS',
        'isAllowList',
        'only takes effect with OUTBOUND_DENY_PRIVATE=true (private addresses are open without it)',
      ),
    );
  }
  if (!IANAZone.isValidZone(config.APP_TIMEZONE)) {
    refusals.push(
      refusal('APP_TIMEZONE', 'isTimeZone', 'must be an IANA time zone such as America/Sao_Paulo'),
    );
  }
  return refusals;
}

function refusal(property: string, constraint: string, message: string): ValidationError {
  return { property, constraints: { [constraint]: message }, children: [] };
}
