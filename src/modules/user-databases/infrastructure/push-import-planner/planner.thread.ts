/**
 * The planner thread's script: parses pushed rows, builds their records and sends them back in
 * batches ready for the batch INSERT, so that none of it runs on the thread serving requests.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { DomainError } from '../../../../common/errors/domain-error';
import { emptyTally, planPushColumns, pushRecords } from '../../domain/push-import-plan';
import { batchJson, RECORD_BATCH_SIZE, serializeRecord } from '../record-batch-format';
import type { PlannerMessage, PlanRequest } from './planner-messages';

const port = parentPort;
if (!port) {
  throw new Error('planner.thread runs as a worker thread');
}

/**
 * The lowest CPU priority: on a busy machine, the requests (main thread) and PostgreSQL go
 * first, and an import takes longer. On Linux the nice value belongs to the thread that sets
 * it; where it cannot be set, the thread runs at the process's priority.
 */
try {
  setPriority(19);
} catch {
  // Not permitted here: planning at normal priority is still off the request thread.
}

function post(message: PlannerMessage): void {
  port!.postMessage(message);
}

function plan({ task, input }: PlanRequest): void {
  const rows: unknown = JSON.parse(input.rowsJson);
  if (!Array.isArray(rows)) {
    throw new Error('rowsJson is not a JSON array');
  }
  const columns = planPushColumns({
    kind: input.kind,
    rows,
    existingColumns: input.existingColumns,
  });
  post({ task, type: 'columns', columns: columns.columns, addedColumns: columns.addedColumns });
  const tally = emptyTally(rows.length);
  let batch: string[] = [];
  for (const record of pushRecords({ ...input, rows }, columns, tally)) {
    batch.push(serializeRecord(record));
    if (batch.length === RECORD_BATCH_SIZE) {
      post({ task, type: 'batch', json: batchJson(batch) });
      batch = [];
    }
  }
  if (batch.length > 0) {
    post({ task, type: 'batch', json: batchJson(batch) });
  }
  post({ task, type: 'done', tally });
}

port.on('message', (request: PlanRequest) => {
  try {
    plan(request);
  } catch (error) {
    post(
      error instanceof DomainError
        ? {
            task: request.task,
            type: 'refused',
            code: error.code,
            kind: error.kind,
            message: error.message,
            details: error.details,
          }
        : { task: request.task, type: 'failed', message: String(error) },
    );
  }
});
