import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { DomainError } from '../../../../common/errors/domain-error';
import { AsyncQueue } from '../../../../common/work/async-queue';
import { startWorkerThread } from '../../../../common/work/worker-thread';
import type {
  PlannedPushImport,
  PushImportPlanInput,
  PushImportPlanner,
} from '../../application/ports/push-import-planner';
import type { ColumnDefinition } from '../../domain/column';
import type { PushImportTally } from '../../domain/push-import-plan';
import type { PlannerMessage, PlanRequest } from './planner-messages';

const THREAD_SCRIPT = join(__dirname, `planner.thread${extname(__filename)}`);
/** One CPU stays with the thread that serves requests (and PostgreSQL, on a small machine). */
const THREADS = Math.min(2, Math.max(1, availableParallelism() - 1));

/** One import as its thread reports it: columns first, then batches, then the tally. */
class PlanningTask implements PlannedPushImport {
  columns: ColumnDefinition[] = [];
  addedColumns: ColumnDefinition[] = [];
  readonly batches = new AsyncQueue<string>();
  private finalTally: PushImportTally | null = null;
  private settleColumns!: { resolve: () => void; reject: (error: Error) => void };
  readonly columnsKnown = new Promise<void>((resolve, reject) => {
    this.settleColumns = { resolve, reject };
  });

  /** Whether this was the task's last message. */
  receive(message: PlannerMessage): boolean {
    switch (message.type) {
      case 'columns':
        this.columns = message.columns;
        this.addedColumns = message.addedColumns;
        this.settleColumns.resolve();
        return false;
      case 'batch':
        this.batches.push(message.json);
        return false;
      case 'done':
        this.finalTally = message.tally;
        this.batches.end();
        return true;
      case 'refused':
        this.fail(new DomainError(message.code, message.kind, message.message, message.details));
        return true;
      case 'failed':
        this.fail(new Error(`push import planner: ${message.message}`));
        return true;
    }
  }

  fail(error: Error): void {
    this.settleColumns.reject(error);
    this.batches.fail(error);
  }

  tally(): PushImportTally {
    if (!this.finalTally) {
      throw new Error('the tally is complete once every batch has been read');
    }
    return this.finalTally;
  }
}

/** A planner thread and the tasks it has been given. */
class PlannerThread {
  readonly tasks = new Map<number, PlanningTask>();
  private readonly worker: Worker = startWorkerThread(THREAD_SCRIPT);

  constructor(onDead: (thread: PlannerThread) => void) {
    this.worker.on('message', (message: PlannerMessage) => {
      const task = this.tasks.get(message.task);
      if (task?.receive(message)) {
        this.tasks.delete(message.task);
      }
    });
    const die = (error: Error): void => {
      onDead(this);
      for (const task of this.tasks.values()) {
        task.fail(error);
      }
      this.tasks.clear();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`push import planner thread exited (${code})`)));
  }

  start(request: PlanRequest, task: PlanningTask): void {
    this.tasks.set(request.task, task);
    this.worker.postMessage(request);
  }

  stop(): Promise<number> {
    return this.worker.terminate();
  }
}

/**
 * Plans push imports on worker threads (started when first needed): the thread parses the
 * rows and builds the batches while the caller writes the ones already built.
 */
@Injectable()
export class ThreadPushImportPlanner implements PushImportPlanner, OnApplicationShutdown {
  private readonly threads: PlannerThread[] = [];
  private nextTask = 1;

  async plan(input: PushImportPlanInput): Promise<PlannedPushImport> {
    const task = new PlanningTask();
    this.leastBusyThread().start({ task: this.nextTask++, input }, task);
    await task.columnsKnown;
    return task;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.threads.splice(0).map((thread) => thread.stop()));
  }

  private leastBusyThread(): PlannerThread {
    const idle = this.threads.find((thread) => thread.tasks.size === 0);
    if (idle || this.threads.length >= THREADS) {
      return idle ?? this.threads.reduce((a, b) => (a.tasks.size <= b.tasks.size ? a : b));
    }
    const thread = new PlannerThread((dead) => this.forget(dead));
    this.threads.push(thread);
    return thread;
  }

  /** A thread that died (it reports an error, then its exit) is replaced on the next plan. */
  private forget(dead: PlannerThread): void {
    const index = this.threads.indexOf(dead);
    if (index !== -1) {
      this.threads.splice(index, 1);
    }
  }
}
