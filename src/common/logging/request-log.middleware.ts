import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger as PinoLogger, Level } from 'pino';
import { requestStateOf } from '../http/request-state';
import { methodLabel, routeLabel } from '../metrics/metric-labels';
import type { Metrics } from '../metrics/metrics';

const CLIENT_REQUEST_ID = /^[\w.:-]{1,100}$/;
/** Health probes run every few seconds; a line each would drown the rest. */
const UNLOGGED_PATHS = /^\/actuator\/health(\/|$|\?)/i;

/** The client's address of a request Express never handled (it has no `ip` then). */
export type AddressOf = (request: IncomingMessage) => string | undefined;

/**
 * Gives every request an id (echoed in X-Request-Id) and logs one line when it ends, with
 * method, path (never the query string) and status — never headers or bodies, so tokens and
 * passwords cannot reach the log from here. With `metrics`, the same listener records the
 * request's duration by route template (the one per-request hook of the metrics: no
 * interceptor, no second listener). Runs ahead of Express: a request it handled has `ip`,
 * another is given its address by `addressOf`.
 */
export function requestLogMiddleware(
  logger: PinoLogger,
  metrics?: Metrics,
  addressOf: AddressOf = (request) => request.socket.remoteAddress,
) {
  const logs = logger.isLevelEnabled('error');
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const sent = request.headers['x-request-id'];
    const id = typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
    requestStateOf(request).id = id;
    response.setHeader('X-Request-Id', id);
    const url = request.url ?? '';
    const logged = logs && !UNLOGGED_PATHS.test(url);
    if (logged || metrics) {
      const startedAt = performance.now();
      response.once('close', () => {
        const statusCode = response.statusCode;
        const elapsedMs = performance.now() - startedAt;
        metrics?.observeHttpRequest(
          methodLabel(request.method),
          routeLabel(request),
          statusCode,
          elapsedMs / 1000,
        );
        if (!logged) {
          return;
        }
        const level = levelOf(response.writableFinished, statusCode);
        if (logger.isLevelEnabled(level)) {
          logger[level](
            {
              req: {
                id,
                method: request.method,
                url: url.split('?')[0],
                ip: clientAddressOf(request, addressOf),
              },
              res: { statusCode },
              responseTime: Math.round(elapsedMs),
            },
            response.writableFinished ? 'request completed' : 'request aborted',
          );
        }
      });
    }
    next();
  };
}

function levelOf(finished: boolean, statusCode: number): Level {
  if (statusCode >= 500) {
    return 'error';
  }
  return !finished || statusCode >= 400 ? 'warn' : 'info';
}

/** The client's address as Express resolved it (TRUST_PROXY applies) once the request ran. */
function clientAddressOf(request: IncomingMessage, addressOf: AddressOf): string | undefined {
  return (request as IncomingMessage & { ip?: string }).ip ?? addressOf(request);
}
