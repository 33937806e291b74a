import { INestApplication, Logger } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Everything in hand was finished or given back, and the database stopped. */
export const EXIT_STOPPED_CLEANLY = 0;
/** The grace period ran out, closing failed, or a second signal cut the stop short. */
export const EXIT_STOPPED_UNFINISHED = 1;

/** How often a stopping HTTP server closes the keep-alive connections that became idle. */
const IDLE_SWEEP_MS = 100;

export interface GracefulStopOptions {
  graceMs: number;
  /** Whether the app serves HTTP (ROLE api or all). */
  servesHttp: boolean;
  /** Runs last, whether the stop finished in time or not (the embedded PostgreSQL). */
  stopDatabase: () => Promise<void>;
}

/**
 * SIGTERM and SIGINT stop the instance gracefully (see stopGracefully) and exit with
 * EXIT_STOPPED_CLEANLY when everything in hand was finished within the grace period. A second
 * signal during the stop exits at once: someone wants the process gone now.
 */
export function stopOnSignals(app: INestApplication, options: GracefulStopOptions): void {
  const logger = new Logger('Shutdown');
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'Second stop signal: exiting now, leaving the work in hand');
      process.exit(EXIT_STOPPED_UNFINISHED);
    }
    stopping = true;
    void stopGracefully(app, options, signal, logger).then((code) => process.exit(code));
  };
  // Nest's own listeners (enableShutdownHooks) would close the app a second time.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * The HTTP server stops accepting connections at once and lets the requests in flight end;
 * app.close() runs the shutdown hooks, where every work loop stops claiming and finishes (or
 * gives back) what it holds before the database connections close, in the phases that
 * BackgroundWorker (src/common/work) describes. Past `graceMs` the process answers
 * EXIT_STOPPED_UNFINISHED without waiting further: whatever is still in flight is taken over by
 * other workers as soon as this process's liveness lock goes with its connection.
 */
async function stopGracefully(
  app: INestApplication,
  options: GracefulStopOptions,
  signal: NodeJS.Signals,
  logger: Logger,
): Promise<number> {
  logger.log({ signal, graceMs: options.graceMs }, 'Stopping: finishing the work in hand');
  if (options.servesHttp) {
    stopAcceptingConnections(app.getHttpServer() as Server);
  }
  let graceTimer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'late'>((resolve) => {
    graceTimer = setTimeout(() => resolve('late'), options.graceMs);
  });
  const closed = app.close().then(
    () => 'closed' as const,
    (error: unknown) => {
      logger.error({ err: error }, 'Closing the application failed');
      return 'failed' as const;
    },
  );
  const result = await Promise.race([closed, graceOver]);
  clearTimeout(graceTimer);
  if (result === 'late') {
    logger.error(
      { graceMs: options.graceMs },
      'Grace period over with work still in flight: exiting; other workers take it over',
    );
  }
  await options.stopDatabase();
  if (result === 'closed') {
    logger.log({ signal }, 'Stopped cleanly');
    return EXIT_STOPPED_CLEANLY;
  }
  return EXIT_STOPPED_UNFINISHED;
}

/**
 * Stops listening, and closes keep-alive connections as soon as they are idle: server.close()
 * alone closes only those idle right now, so a client's kept-alive connection would hold the
 * stop until its keep-alive timeout. Requests arriving on a connection still open are served,
 * with `Connection: close`.
 */
function stopAcceptingConnections(server: Server): void {
  // Ahead of Express's listener, which may answer before a later listener runs.
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) =>
    response.setHeader('Connection', 'close'),
  );
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  server.close(() => clearInterval(sweep));
}
