import type { ContactFailureKind } from './contact-failure-kind';
import type { PricedCategory } from '../../../common/messaging/message-prices';
/** One receipt: the gateway's message key id, how far the message got, and when. */
export interface Receipt {
  companyId: number;
  keyId: string;
  /** 0 error, 2 server ack, 3 delivered, 4 read, 5 played (see receiptRank). */
  rank: number;
  at: Date;
  /** WhatsApp's code of an ERROR (463: the reach-out lock), when the event carries one. */
  code: string | null;
  /** What the gateway says the error is (the Cloud API's error title), when it says. */
  title?: string | null;
  /** An ERROR's failure kind (refusalKindOf); not_delivered when not given. */
  refusalKind?: RefusalKind;
}

/**
 * The failure kinds of a message refused after the gateway accepted it: WhatsApp's refusal
 * (not_delivered), or one of Meta's reasons that are the person's (a `failed` status's code).
 */
export const REFUSAL_KINDS = [
  'not_delivered',
  'undeliverable',
  'reengagement_required',
  'marketing_limit',
] as const satisfies readonly ContactFailureKind[];
export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** The refusal kind of an error whose code proves `gatewayKind` (kindOfMetaCode); else not_delivered. */
export function refusalKindOf(gatewayKind: string | undefined): RefusalKind {
  return REFUSAL_KINDS.find((kind) => kind === gatewayKind) ?? 'not_delivered';
}

/** A sent message WhatsApp refused (its contact now FAILED `not_delivered`). */
export interface RefusedSend {
  companyId: number;
  gatewayConfigId: number;
  campaignId: number;
  /** Whether the person had talked with the number: a refused warm contact locks it all. */
  warm: boolean;
  code: string | null;
}

/** What a batch of receipts did: the key ids that matched a contact, and the refusals. */
export interface AppliedReceipts {
  matched: Set<string>;
  refused: RefusedSend[];
}

/** The text a refused contact's failure shows. */
export function notDeliveredReason(code: string | null, title?: string | null): string {
  const base = 'o WhatsApp recusou a mensagem depois que o gateway a aceitou';
  const detail = [code && `código ${code}`, title].filter(Boolean).join(': ');
  return detail ? `${base} (${detail})` : base;
}

/** A Cloud API message Meta says it charged for, at the price of `category`. */
export interface BilledMessage {
  companyId: number;
  keyId: string;
  category: PricedCategory;
}

/** A status that names the contact it was sent for (the Cloud API's biz_opaque_callback_data). */
export interface CallbackReceipt {
  companyId: number;
  contactId: string;
  keyId: string;
  at: Date;
}
