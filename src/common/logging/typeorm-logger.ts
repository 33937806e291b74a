import { Logger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/**
 * TypeORM's messages as JSON lines through Nest's logger (pino once the app runs), instead of
 * TypeORM's console logger, which prints plain text with the query parameters. Keeps what
 * `logging: ['error']` kept: failed queries (without their parameters, which can carry data that
 * must not reach a log) and TypeORM's warnings. A failure that becomes a 500 is logged again,
 * with its error id, by the exception filter.
 */
export class TypeOrmJsonLogger implements TypeOrmLogger {
  private readonly logger = new Logger('TypeORM');

  logQuery(): void {
    // Every query: not logged.
  }

  logQueryError(error: string | Error, query: string): void {
    const code = typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
    const cause = withoutQuotedValues(typeof error === 'string' ? error : error.message, code);
    this.logger.warn(
      { query, error: cause, ...(typeof code === 'string' ? { code } : {}) },
      'Query failed',
    );
  }

  logQuerySlow(time: number, query: string): void {
    this.logger.warn({ query, timeMs: time }, 'Slow query');
  }

  logSchemaBuild(): void {
    // synchronize is never on.
  }

  logMigration(): void {
    // runMigrations logs the migrations it applied.
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') {
      this.logger.warn({ message }, 'TypeORM warning');
    }
  }
}

/**
 * PostgreSQL's data exceptions (SQLSTATE class 22) quote the value they refused
 * (`invalid input syntax for type integer: "…"`), which may be a customer's number or message:
 * the quoted values are left out. Other classes quote names (relations, constraints), kept.
 */
export function withoutQuotedValues(message: string, code: unknown): string {
  return typeof code === 'string' && code.startsWith('22')
    ? message.replace(/"(?:[^"]|"")*"/g, '"…"')
    : message;
}
