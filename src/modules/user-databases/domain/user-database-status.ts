import { TransitionTable } from '../../../common/state/transition-table';

/**
 * ACTIVE or INACTIVE, by hand (toggle-status). Imports and syncs are atomic (one transaction),
 * so a database is never seen half-loaded and needs no PROCESSING or ERROR state.
 */
export const USER_DATABASE_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type UserDatabaseStatus = (typeof USER_DATABASE_STATUSES)[number];

export const USER_DATABASE_ORIGINS = ['UPLOAD', 'GATEWAY', 'PUSH_IMPORT', 'SYSTEM'] as const;
export type UserDatabaseOrigin = (typeof USER_DATABASE_ORIGINS)[number];

/** New databases are ACTIVE: imports fill them inside the transaction that creates them. */
export const USER_DATABASE_CREATED: UserDatabaseStatus = 'ACTIVE';

/** docs/API-RULES.md §6: toggle-status alternates ACTIVE and INACTIVE; nothing else moves by hand. */
export const USER_DATABASE_LIFECYCLE = new TransitionTable<UserDatabaseStatus, 'toggle'>(
  'USER_DATABASE',
  { toggle: { ACTIVE: 'INACTIVE', INACTIVE: 'ACTIVE' } },
);
