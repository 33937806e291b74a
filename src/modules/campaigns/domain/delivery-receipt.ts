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

/** A status that names the contact it was sent for (the Cloud API's biz_opaque_callback_data). */
export interface CallbackReceipt {
  companyId: number;
  contactId: string;
  keyId: string;
  at: Date;
}
