/**
 * Why a campaign contact is FAILED, recorded with the move (`campaign_contacts.failure_kind`).
 * The values are the `reason` labels the metrics count failed messages with
 * (docs/OPERATIONS.md, "Metrics"), plus `unrecorded` for contacts that failed before kinds were
 * recorded.
 */
export const CONTACT_FAILURE_KINDS = [
  /** The number is not on WhatsApp (`exists:false`). */
  'refused_number',
  /** The gateway's request validation refused the message: the same payload fails again. */
  'rejected',
  /** Every attempt answered with an error that proves nothing went out (5xx, 429, refused connection). */
  'retries_exhausted',
  /** On the company's block list since the campaign was created. */
  'blocked',
  /** The template rendered blank for this contact (variables without values). */
  'blank_message',
  /** WhatsApp refused the message after the gateway accepted it (an ERROR receipt). */
  'not_delivered',
  /** Reconciliation never found the message: it may have gone out. */
  'unknown_outcome',
  /** FAILED before failure kinds were recorded: nothing tells whether it may be sent again. */
  'unrecorded',
  /** Meta could not deliver to the person (Cloud API 131026: not on WhatsApp, an old app…). */
  'undeliverable',
  /** Meta refused a free-form message: the person has not written in 24 h (Cloud API 131047). */
  'reengagement_required',
  /** The person has had their share of marketing templates for now (Cloud API 131049). */
  'marketing_limit',
  /** A free-form message on the Cloud API to a person who has not written in 24 h: no call made. */
  'outside_window',
] as const;
export type ContactFailureKind = (typeof CONTACT_FAILURE_KINDS)[number];

/** The kinds a send itself ends in (the dispatcher's `fail`); the others come from elsewhere. */
export type SendFailureKind = Exclude<
  ContactFailureKind,
  'unknown_outcome' | 'unrecorded' | 'not_delivered'
>;

/**
 * Whether a person's retry may send the contact again (docs/API-RULES.md §4, "Retrying failed
 * contacts"). Only a failure that proves no message went out and may not happen again is
 * retried: a retried message that did go out is a doubled marketing message, the one thing
 * this service must never do. A record, so that a new kind cannot be added without a decision.
 */
const RETRYABLE: Record<ContactFailureKind, boolean> = {
  // The gateway or its network were down for a minute: they may be up now.
  retries_exhausted: true,
  // WhatsApp will refuse the number again.
  refused_number: false,
  // The gateway refuses the request as written (a 4xx, its schema): the payload is unchanged.
  rejected: false,
  // The company asked not to message the number.
  blocked: false,
  // The template and the contact's data are the same: the message is blank again.
  blank_message: false,
  // WhatsApp said it never delivered it: a resend cannot double it (it waits out a lock).
  not_delivered: true,
  // It may have been delivered: resending risks a second message.
  unknown_outcome: false,
  // The old reason texts cannot prove nothing went out (earlier versions failed uncertain sends).
  unrecorded: false,
  // Meta says the person cannot receive it (not on WhatsApp, an old app): it fails again.
  undeliverable: false,
  // Nothing went out, and a retry checks the window again before any call: only the people who
  // wrote since are sent, the others fail again without a call.
  reengagement_required: true,
  outside_window: true,
  // Nothing went out; Meta's per-person marketing limit lifts with time, and a person's retry
  // comes later (Meta: do not retry at once; error-codes page, 131049).
  marketing_limit: true,
};

export function isRetryableFailure(kind: ContactFailureKind): boolean {
  return RETRYABLE[kind];
}

/** The kinds a retry takes back, for the retry's set-based SQL. */
export const RETRYABLE_FAILURE_KINDS: readonly ContactFailureKind[] =
  CONTACT_FAILURE_KINDS.filter(isRetryableFailure);
