import type { ErrorKind } from '../../../../common/errors/domain-error';
import type { PushImportPlanInput } from '../../application/ports/push-import-planner';
import type { ColumnDefinition } from '../../domain/column';
import type { PushImportTally } from '../../domain/push-import-plan';

/** What the service asks the planner thread: plan `input` as task `task`. */
export interface PlanRequest {
  task: number;
  input: PushImportPlanInput;
}

/**
 * What the thread answers, in this order: the columns, the batches, then done; or, instead of
 * any of them, refused (a DomainError: the rows cannot be imported) or failed (a bug).
 */
export type PlannerMessage =
  | { task: number; type: 'columns'; columns: ColumnDefinition[]; addedColumns: ColumnDefinition[] }
  | { task: number; type: 'batch'; json: string }
  | { task: number; type: 'done'; tally: PushImportTally }
  | {
      task: number;
      type: 'refused';
      code: string;
      kind: ErrorKind;
      message: string;
      details?: Record<string, unknown>;
    }
  | { task: number; type: 'failed'; message: string };
