import pino, { type Logger as PinoLogger } from 'pino';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../../config/app-config.service';

/** Fields that must never reach a log line, wherever a caller puts them. */
export const REDACTED_PATHS = [
  'req.headers["x-access-token"]',
  'req.headers.access_token',
  'req.headers.authorization',
  'req.headers.apikey',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.apiKey',
  '*.gatewayApiKey',
  '*.accessToken',
  '*.appSecret',
  '*.secret',
];

/** The process's one pino logger: JSON lines on stdout, secrets redacted. */
export function createRootLogger(config: AppConfig): PinoLogger {
  return pino({
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}

/**
 * nestjs-pino serves as Nest's logger over the root logger. Requests are logged by
 * RequestLogMiddleware instead of pino-http: pino-http's per-request child logger and
 * nestjs-pino's AsyncLocalStorage binding cost more than the rest of an authenticated GET
 * together, and the request id reaches the lines that need it explicitly.
 */
export function loggerOptions(root: PinoLogger): Params {
  return { pinoHttp: { logger: root }, forRoutes: [] };
}
