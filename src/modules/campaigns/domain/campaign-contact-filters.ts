import type { CampaignContactStatus } from './campaign-contact-status';
import type { ContactFailureKind } from './contact-failure-kind';

/** The contact states the API shows; PENDING stands for the ones still in flight too. */
export const PUBLIC_CONTACT_STATUSES = ['PENDING', 'SENT', 'FAILED'] as const;
export type PublicContactStatus = (typeof PUBLIC_CONTACT_STATUSES)[number];

/** What the contact statuses a public status stands for (publicContactStatus, the other way). */
export const CONTACT_STATUSES_SHOWN_AS: Record<PublicContactStatus, CampaignContactStatus[]> = {
  PENDING: ['PENDING', 'SENDING', 'UNCERTAIN'],
  SENT: ['SENT'],
  FAILED: ['FAILED'],
};

/**
 * What WhatsApp told about a contact's message (docs/API-RULES.md, "Finding and exporting a
 * campaign's contacts"). A READ or PLAYED receipt also records the delivery, so READ contacts
 * are DELIVERED ones too; NOT_DELIVERED is the opposite of DELIVERED among the messages that
 * went out or that WhatsApp refused: without delivery tracking every sent message is in it.
 */
export const CONTACT_RECEIPTS = ['DELIVERED', 'READ', 'REPLIED', 'NOT_DELIVERED'] as const;
export type ContactReceipt = (typeof CONTACT_RECEIPTS)[number];

/** The longest `search` a person types: a name (100 characters) or a phone. */
export const MAX_CONTACT_SEARCH_LENGTH = 100;

/** A name search shorter than this has no trigram to look up: it would read every contact. */
export const MIN_NAME_SEARCH_LENGTH = 3;

/** A search made of a phone's digits and what people write between them. */
const PHONE_SEARCH = /^[\d\s()+.-]+$/;

/** `search` as the query runs it: a part of the phone's digits, or a part of the name. */
export type ContactSearch = { phoneDigits: string } | { name: string };

/**
 * A search of digits (with spaces, `+`, `-`, `.` or parentheses between them) looks for those
 * digits anywhere in the phone number; anything else looks for the text in the name, without
 * case or accents (the database folds both sides). Null for a blank search.
 */
export function contactSearchOf(search: string | undefined): ContactSearch | null {
  const text = search?.trim() ?? '';
  if (text === '') {
    return null;
  }
  if (PHONE_SEARCH.test(text) && /\d/.test(text)) {
    return { phoneDigits: text.replace(/\D/g, '') };
  }
  return { name: text };
}

/** The filters of a campaign's contacts list and export; each one left out matches every contact. */
export interface CampaignContactFilters {
  status?: PublicContactStatus;
  receipt?: ContactReceipt;
  failureKind?: ContactFailureKind;
  search?: ContactSearch | null;
}

/** The campaign counters (summed over a pool's senders) a contacts total can be read from. */
export type ContactCounter =
  'total' | 'pending' | 'sent' | 'failed' | 'delivered' | 'read' | 'replied';

const STATUS_COUNTERS: Record<PublicContactStatus, ContactCounter> = {
  PENDING: 'pending',
  SENT: 'sent',
  FAILED: 'failed',
};

const RECEIPT_COUNTERS: Record<ContactReceipt, ContactCounter | null> = {
  DELIVERED: 'delivered',
  READ: 'read',
  REPLIED: 'replied',
  // Sent and never delivered, or refused after the gateway took it: no counter holds it.
  NOT_DELIVERED: null,
};

/**
 * The counter that holds the number of contacts `filters` match, or null when they must be
 * counted. A counter moves in the statement that moves its contacts (sends, reconciliation,
 * receipts, replies, retries, failover), so it is exact for one status or one receipt alone;
 * a search, a failure kind or two filters together have none.
 */
export function counterOf(filters: CampaignContactFilters): ContactCounter | null {
  if (filters.search || filters.failureKind || (filters.status && filters.receipt)) {
    return null;
  }
  if (filters.status) {
    return STATUS_COUNTERS[filters.status];
  }
  return filters.receipt ? RECEIPT_COUNTERS[filters.receipt] : 'total';
}
