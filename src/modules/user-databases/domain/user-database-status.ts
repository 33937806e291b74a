export const USER_DATABASE_STATUSES = ['ACTIVE', 'INACTIVE', 'PROCESSING', 'ERROR'] as const;
export type UserDatabaseStatus = (typeof USER_DATABASE_STATUSES)[number];

export const USER_DATABASE_ORIGINS = ['UPLOAD', 'GATEWAY', 'PUSH_IMPORT', 'SYSTEM'] as const;
export type UserDatabaseOrigin = (typeof USER_DATABASE_ORIGINS)[number];

/**
 * docs/API-RULES.md §6: toggle-status alternates ACTIVE and INACTIVE; nothing else moves by hand.
 * Imports here are atomic (one transaction), so PROCESSING and ERROR are never left behind
 * by this service; they stay valid values of the contract.
 */
export const TOGGLED_STATUS: Partial<Record<UserDatabaseStatus, UserDatabaseStatus>> = {
  ACTIVE: 'INACTIVE',
  INACTIVE: 'ACTIVE',
};
