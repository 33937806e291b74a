import type { Logger } from '@nestjs/common';
import { GatewayError } from '../domain/messaging-gateway';

/**
 * Logs a gateway call that failed with a GatewayError, at debug level: where it went (`where`:
 * instance, host, number, never a key or a token) and how it failed. Answers the error, for
 * the caller to throw on.
 */
export function loggedCallFailure(
  logger: Logger,
  message: string,
  where: Record<string, unknown>,
  error: unknown,
): unknown {
  if (error instanceof GatewayError) {
    logger.debug({ ...where, kind: error.kind, httpStatus: error.httpStatus }, message);
  }
  return error;
}
