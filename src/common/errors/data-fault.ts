import { QueryFailedError } from 'typeorm';

/**
 * Whether an error is the fault of the values being written, so that trying them again can
 * only fail the same way: PostgreSQL's data exceptions (class 22, e.g. "timestamp out of
 * range") and integrity violations (class 23), or the code's own TypeError / RangeError on a
 * value (an unreadable date). Anything else (a lost connection, a deadlock, a timeout) is the
 * database's state, which a later try may not meet.
 */
export function isDataFault(error: unknown): boolean {
  if (error instanceof QueryFailedError) {
    const code = (error.driverError as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
  }
  return error instanceof TypeError || error instanceof RangeError;
}

/**
 * The failure's kind, safe to log: the SQLSTATE, or the error's name (messages may quote the
 * values, and so customers' data).
 */
export function faultCode(error: unknown): string {
  if (error instanceof QueryFailedError) {
    const code = (error.driverError as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? code : 'sql';
  }
  return error instanceof Error ? error.name : typeof error;
}

/** What an operator reads of the failure, kept beside the data it is about: kind and message. */
export function faultReason(error: unknown): string {
  return `${faultCode(error)}: ${error instanceof Error ? error.message : String(error)}`;
}
