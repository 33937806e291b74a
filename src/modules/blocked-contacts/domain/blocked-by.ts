/** How a number got on the block list. */
export const BLOCKED_BY = ['MANUAL', 'IMPORT', 'OPT_OUT'] as const;
export type BlockedBy = (typeof BLOCKED_BY)[number];
