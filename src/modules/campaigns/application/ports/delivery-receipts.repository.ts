import type { EntityManager } from 'typeorm';
/** One receipt: the gateway's message key id, how far the message got, and when. */
export interface Receipt {
  companyId: number;
  keyId: string;
  /** 0 error, 2 server ack, 3 delivered, 4 read, 5 played (see receiptRank). */
  rank: number;
  at: Date;
}

/**
 * Receipts, set-based: a batch of messages.update events is one statement that moves each
 * contact's delivered/read/played times forward (never back, READ implying delivered) and
 * counts, per campaign, the contacts that became delivered or read in it.
 */
export abstract class DeliveryReceiptsRepository {
  /** Applies the receipts; returns the key ids that matched a contact (others may come early). */
  abstract apply(manager: EntityManager, receipts: Receipt[]): Promise<Set<string>>;
  /**
   * The campaign whose message a person answered: the latest one this gateway configuration
   * sent to one of the number's forms; its opt-outs count one more. Null when none did.
   */
  abstract countOptOut(
    manager: EntityManager,
    companyId: number,
    gatewayConfigId: number,
    phones: string[],
  ): Promise<{ campaignId: number; automationRunId: string | null } | null>;
  /** ACTIVE campaigns of the configuration wait for the instance (which reconnects by itself). */
  abstract holdForClosedInstance(gatewayConfigId: number, recheckSeconds: number): Promise<number>;
  /** The instance is back: campaigns that waited for it are due at once. */
  abstract releaseForOpenInstance(gatewayConfigId: number): Promise<number>;
  /** Campaigns that can still send through the configuration (ACTIVE or PAUSED). */
  abstract liveCampaignIds(gatewayConfigId: number): Promise<number[]>;
}
