/** The NOTIFY channel that wakes every instance's dispatch loop (new, resumed or settled work). */
export const DISPATCH_CHANNEL = 'campaign_dispatch';

/** The NOTIFY channel that wakes the pools' supervisor (SenderPoolsWorker): a sender ended, stopped or was lost. */
export const SENDER_POOLS_CHANNEL = 'sender_pools';
