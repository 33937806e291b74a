import { OwnedResources } from '../../../../common/tenancy/owned-resource';
import type { ImportJob, ImportKind, RowError } from '../../domain/import-job.entity';
import type { EntityManager } from 'typeorm';
export interface ClaimedJob {
  id: number;
  companyId: number;
  kind: ImportKind;
  attempts: number;
}

export interface JobOutcome {
  databaseId: number;
  imported: number;
  duplicatesRemoved: number;
  invalidRows: number;
  rowErrors: RowError[];
}

/** LISTEN/NOTIFY channel that wakes import workers. */
export const IMPORT_CHANNEL = 'contact_imports';

export abstract class ImportJobsRepository extends OwnedResources<ImportJob> {
  abstract transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  abstract submit(job: {
    companyId: number;
    kind: ImportKind;
    payload: unknown;
    totalRows: number;
    databaseId: number | null;
    submittedAt: Date;
  }): Promise<ImportJob>;
  /**
   * Leases the oldest job that is PENDING, or RUNNING with an expired lease (its worker died).
   * A live worker keeps its job row locked while it works, so SKIP LOCKED passes over it even
   * after the lease runs out: the lease only decides how soon a dead worker's job is retried.
   */
  abstract claim(workerId: string, leaseSeconds: number): Promise<ClaimedJob | null>;
  /**
   * The job's payload, row-locked for the transaction: its options, and its rows as JSON text
   * (they are parsed on the planner's thread, not here); null when another worker took the
   * job over.
   */
  abstract lockForWork(
    manager: EntityManager,
    id: number,
    workerId: string,
  ): Promise<{ options: unknown; rowsJson: string } | null>;
  abstract complete(manager: EntityManager, id: number, outcome: JobOutcome): Promise<void>;
  abstract fail(id: number, workerId: string, error: string): Promise<void>;
  /** Back to PENDING after an unexpected error, for another attempt. */
  abstract retryLater(id: number, workerId: string, error: string): Promise<void>;
  abstract msUntilNextDue(): Promise<number | null>;
  /** For the metrics: PENDING jobs, counted up to `cap` over the open-jobs index. */
  abstract countPending(cap: number): Promise<number>;
}
