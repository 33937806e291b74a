import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../common/errors/domain-error';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { newWorkerId } from '../../../common/work/worker-liveness';
import { ClaimedJob, ImportJobsRepository } from '../infrastructure/import-jobs.repository';
import { IMPORT_CHANNEL } from '../infrastructure/import-jobs.repository';
import {
  ContactImportOptions,
  PushImports,
} from '../../user-databases/application/push-imports.service';

/**
 * How soon a job whose worker died is taken over. A live worker holds its job's row lock, so
 * it never loses the job however long it takes; this only bounds the delay after a crash.
 */
export const IMPORT_LEASE_SECONDS = 15;
/** Attempts before a job that keeps dying (or erring) is failed. */
export const MAX_IMPORT_ATTEMPTS = 3;
/** Least pause between claims while a job is held by a worker past its lease. */
const BUSY_POLL_MS = 1_000;

/**
 * Runs async push imports (…/imports/contacts?async=true). Each job is claimed with
 * SKIP LOCKED and a lease, then imported in one transaction that also marks it COMPLETED: a
 * worker killed with -9 leaves no rows behind, and the next claim starts the job over.
 */
@Injectable()
export class ImportJobWorker extends BackgroundWorker {
  readonly workerId = newWorkerId();

  constructor(
    private readonly jobs: ImportJobsRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly imports: PushImports,
    context: WorkerContext,
  ) {
    super(context, {
      name: 'contact-imports',
      idleMs: 5_000,
      wakeOn: IMPORT_CHANNEL,
      queue: { name: 'import_jobs', countDue: (cap) => jobs.countPending(cap) },
      // An import holds its job's row lock for as long as it runs: minutes for a large one.
      drainsLast: true,
    });
  }

  protected async step(): Promise<number | null> {
    const job = await this.jobs.claim(this.workerId, IMPORT_LEASE_SECONDS);
    if (!job) {
      const ms = await this.jobs.msUntilNextDue();
      return ms === null ? null : Math.max(ms, BUSY_POLL_MS);
    }
    if (job.attempts > MAX_IMPORT_ATTEMPTS) {
      await this.jobs.fail(
        job.id,
        this.workerId,
        `A importação foi interrompida ${MAX_IMPORT_ATTEMPTS} vezes`,
      );
      return 0;
    }
    await this.process(job);
    return 0;
  }

  private async process(job: ClaimedJob): Promise<void> {
    const started = Date.now();
    try {
      const result = await this.unitOfWork.run(async (tx) => {
        const locked = await this.jobs.lockForWork(tx, job.id, this.workerId);
        if (!locked) {
          return null;
        }
        const imported = await this.imports.run(
          tx,
          job.companyId,
          locked.options as ContactImportOptions,
          locked.rowsJson,
        );
        const { database, summary } = imported;
        await this.jobs.complete(tx, job.id, {
          databaseId: database.id,
          imported: summary.imported,
          duplicatesRemoved: summary.duplicatesRemoved,
          invalidRows: summary.invalidRows,
          rowErrors: summary.errors,
        });
        return imported;
      });
      if (result) {
        this.logger.log({ jobId: job.id, ms: Date.now() - started }, 'Contact import completed');
        await this.imports.afterCommit(result, 'push_async');
      }
    } catch (error) {
      await this.failed(job, error);
    }
  }

  /** A refusal (limit, missing database) is final; anything else is retried while attempts last. */
  private async failed(job: ClaimedJob, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof DomainError || job.attempts >= MAX_IMPORT_ATTEMPTS) {
      await this.jobs.fail(job.id, this.workerId, message);
      return;
    }
    this.logger.error({ jobId: job.id, err: error }, 'Contact import failed; it will be retried');
    await this.jobs.retryLater(job.id, this.workerId, message);
  }
}
