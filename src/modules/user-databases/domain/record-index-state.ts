import { TransitionTable } from '../../../common/state/transition-table';

/**
 * A request for a per-database index (user_database_indexes.state): queued PENDING until the
 * worker has built it (READY) or given up after its last attempt (FAILED); DROP once its
 * database is gone, until the worker has dropped the index and forgets the request.
 */
export const RECORD_INDEX_STATES = ['PENDING', 'READY', 'FAILED', 'DROP'] as const;
export type RecordIndexState = (typeof RECORD_INDEX_STATES)[number];

export type RecordIndexAction = 'build' | 'fail' | 'drop';

/** A new request waits for the worker. */
export const RECORD_INDEX_QUEUED: RecordIndexState = 'PENDING';

/**
 * Only a PENDING request is built or fails: a database deleted during the build turned it into
 * DROP, which the build's end must not undo. Whatever its state, a request whose database is
 * gone is dropped (again: a new drop starts its attempts over).
 */
export const RECORD_INDEX_LIFECYCLE = new TransitionTable<RecordIndexState, RecordIndexAction>(
  'RECORD_INDEX',
  {
    build: { PENDING: 'READY' },
    fail: { PENDING: 'FAILED' },
    drop: { PENDING: 'DROP', READY: 'DROP', FAILED: 'DROP', DROP: 'DROP' },
  },
);

/** The states the worker has something to do in: build a PENDING index, drop a DROP one. */
export const RECORD_INDEX_WORK_STATES: readonly RecordIndexState[] = [
  ...RECORD_INDEX_LIFECYCLE.statusesAllowing('build'),
  RECORD_INDEX_LIFECYCLE.target('drop'),
];
