import { Injectable } from '@nestjs/common';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import {
  IndexConnection,
  IndexRequest,
  RecordIndexesRepository,
} from './ports/record-indexes.repository';
import { INDEX_CHANNEL } from './ports/record-indexes.repository';
const MAX_ATTEMPTS = 3;

/**
 * Builds and drops the per-database indexes of large databases with CREATE/DROP INDEX
 * CONCURRENTLY, so that no import, send or search of any company waits on them. One index at
 * a time per instance; PostgreSQL serializes concurrent builds on the table anyway.
 */
@Injectable()
export class RecordIndexWorker extends BackgroundWorker {
  constructor(
    private readonly indexes: RecordIndexesRepository,
    context: WorkerContext,
  ) {
    super(context, {
      name: 'user-database-indexes',
      idleMs: 30_000,
      errorBackoffMs: 5_000,
      wakeOn: INDEX_CHANNEL,
    });
  }

  protected async step(): Promise<number | null> {
    const request = await this.indexes.claim();
    if (!request) {
      return this.indexes.msUntilNextDue();
    }
    await this.work(request);
    return 0;
  }

  private async work(request: IndexRequest): Promise<void> {
    try {
      if (request.state === 'PENDING' && !(await this.indexes.databaseExists(request.databaseId))) {
        await this.indexes.markForDrop(request.name);
        return;
      }
      const started = Date.now();
      const outcome = await this.indexes.exclusively(request.name, (connection) =>
        request.state === 'DROP'
          ? this.indexes.drop(connection, request.name)
          : this.build(connection, request),
      );
      if (outcome === 'busy') {
        await this.indexes.postpone(request.name);
      } else if (request.state === 'DROP') {
        await this.indexes.forget(request.name);
      } else {
        await this.indexes.markReady(request.name);
        this.logger.log({ index: request.name, ms: Date.now() - started }, 'Record index built');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn({ index: request.name, err: message }, 'Record index work failed');
      await this.indexes.markFailed(request.name, message, request.attempts >= MAX_ATTEMPTS);
    }
  }

  private async build(connection: IndexConnection, request: IndexRequest): Promise<void> {
    if (request.kind === 'SEARCH') {
      // A search index follows a bulk load; the planner must see those rows first.
      await this.indexes.analyzeRecords(false, connection);
    }
    await this.indexes.build(connection, request);
  }
}
