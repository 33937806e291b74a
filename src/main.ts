// First: the heap's settings hold for what the modules below allocate as they load.
import './heap-settings';
import { ConsoleLogger, Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { InvalidConfigurationError } from './config/app-config';
import { loadAppConfig } from './config/app-config.loader';
import { AppConfig } from './config/app-config.service';
import { RunningDatabase, startEmbeddedPostgres } from './database/embedded-postgres';
import { runMigrations } from './database/migrate';
import { stopOnSignals } from './graceful-stop';

async function connectDatabase(config: AppConfig): Promise<RunningDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, stop: () => Promise.resolve() };
  }
  return startEmbeddedPostgres(config.dataDir);
}

async function bootstrap(): Promise<void> {
  // JSON from the first line on; the app switches to pino once it exists.
  Logger.overrideLogger(new ConsoleLogger({ json: true, colors: false }));
  const logger = new Logger('Bootstrap');
  const config = loadAppConfig();
  const database = await connectDatabase(config);
  let stopping = false;
  const stopDatabase = async (): Promise<void> => {
    if (!stopping) {
      stopping = true;
      await database
        .stop()
        .catch((error: unknown) => logger.error({ err: error }, 'Stopping PostgreSQL failed'));
    }
  };
  try {
    await runMigrations(database.url);
    const app = await createApp(config, database.url);
    if (config.adminPasswordGeneratedNow) {
      // Logged once, on the start that created it; afterwards it is only in the file.
      // The Bootstrap logger writes through pino now (createApp installed it); it adds its context,
      // so the text below stays the message instead of being taken for the context.
      logger.warn(
        { adminPassword: config.adminPassword, file: `${config.dataDir}/admin-password` },
        'Generated ADMIN_PASSWORD (shown once; kept in DATA_DIR/admin-password)',
      );
    }
    process.once('beforeExit', () => void stopDatabase());
    if (config.runsHttp) {
      await app.listen(config.port);
      logger.log({ port: config.port, role: config.role }, 'Service listening');
    } else {
      await app.init();
      logger.log({ role: config.role }, 'Worker started (no HTTP)');
    }
    stopOnSignals(app, {
      graceMs: config.shutdownGraceMs,
      servesHttp: config.runsHttp,
      stopDatabase,
    });
  } catch (error) {
    await stopDatabase();
    throw error;
  }
}

bootstrap().catch((error: unknown) => {
  if (error instanceof InvalidConfigurationError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Startup failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
