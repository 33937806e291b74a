/** The NOTIFY channel that wakes every instance's dispatch loop (new, resumed or settled work). */
export const DISPATCH_CHANNEL = 'campaign_dispatch';
