import { TransitionTable } from '../../../common/state/transition-table';

/**
 * The life of one campaign contact. SENDING is committed before the gateway is called, so a
 * message is never sent twice; UNCERTAIN is a send whose outcome the gateway did not prove
 * (docs/ARCHITECTURE.md, "Gateway outcomes"): it is never sent again, only reconciled with the
 * gateway's message store, and ends SENT (found) or FAILED (not found).
 */
export const CAMPAIGN_CONTACT_STATUSES = [
  'PENDING',
  'SENDING',
  'UNCERTAIN',
  'SENT',
  'FAILED',
] as const;
export type CampaignContactStatus = (typeof CAMPAIGN_CONTACT_STATUSES)[number];

export type CampaignContactAction =
  /** An attempt begins: committed before the gateway call. */
  | 'take'
  /** The gateway proved the message went out (or reconciliation found it). */
  | 'deliver'
  /** Not to be sent: a refused number, a blank message, a number blocked since creation. */
  | 'fail'
  /** The attempt proved nothing was sent (or never reached the gateway): try again later. */
  | 'requeue'
  /** The outcome cannot be known: reconcile, never resend. */
  | 'doubt'
  /** Reconciliation found nothing: failed, counted as an unknown outcome. */
  | 'writeOff'
  /**
   * A person's retry of the campaign's failures: back to PENDING, once per contact, and only
   * for failure kinds that prove nothing went out (`RETRYABLE_FAILURE_KINDS`, which the
   * statement also guards on: the status alone does not tell an unknown outcome apart).
   */
  | 'retry'
  /**
   * WhatsApp refused a message the gateway had accepted (an ERROR receipt): nothing arrived,
   * so the contact is FAILED `not_delivered`, and a retry may send it again.
   */
  | 'refuse'
  /**
   * A delivery or read receipt for a message a refusal had failed: it arrived after all (the
   * receipts came out of order). Only from `not_delivered`, which the statement guards on.
   */
  | 'arrive';

export const CAMPAIGN_CONTACT_TRANSITIONS: Record<
  CampaignContactAction,
  Partial<Record<CampaignContactStatus, CampaignContactStatus>>
> = {
  take: { PENDING: 'SENDING' },
  deliver: { SENDING: 'SENT', UNCERTAIN: 'SENT' },
  fail: { SENDING: 'FAILED' },
  requeue: { SENDING: 'PENDING' },
  doubt: { SENDING: 'UNCERTAIN' },
  writeOff: { UNCERTAIN: 'FAILED' },
  retry: { FAILED: 'PENDING' },
  refuse: { SENT: 'FAILED' },
  arrive: { FAILED: 'SENT' },
};

export const CAMPAIGN_CONTACT_LIFECYCLE = new TransitionTable<
  CampaignContactStatus,
  CampaignContactAction
>('CAMPAIGN_CONTACT', CAMPAIGN_CONTACT_TRANSITIONS);

/** The statuses `action` may start from, for the engine's set-based SQL guards. */
export function contactStatusesAllowing(action: CampaignContactAction): CampaignContactStatus[] {
  return CAMPAIGN_CONTACT_LIFECYCLE.statusesAllowing(action);
}

/** Statuses that keep a campaign from completing: something may still be sent or resolved. */
export const UNFINISHED_CONTACT_STATUSES: readonly CampaignContactStatus[] = [
  'PENDING',
  'SENDING',
  'UNCERTAIN',
];

/** The contract shows three states: a contact in flight or being reconciled is still PENDING. */
export function publicContactStatus(status: CampaignContactStatus): 'PENDING' | 'SENT' | 'FAILED' {
  return status === 'SENT' || status === 'FAILED' ? status : 'PENDING';
}
