import { Injectable, Logger } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import type { Receipt } from '../domain/delivery-receipt';
import { DeliveryReceiptsRepository } from '../infrastructure/delivery-receipts.repository';
import { CampaignDispatcher } from './campaign-dispatcher';

export type { Receipt } from '../domain/delivery-receipt';

/** How soon a campaign held for a closed instance looks again if no "open" event comes. */
const CLOSED_INSTANCE_RECHECK_SECONDS = 60;
export const LOGGED_OUT_REASON =
  'a instância do WhatsApp saiu da conta (logout): conecte o número de novo no gateway e retome a campanha';

/**
 * What the gateway's events mean for campaigns, for the module that receives them: receipts,
 * the campaign a person answered when opting out, and the instance's connection.
 */
@Injectable()
export class CampaignDeliveryEvents {
  private readonly logger = new Logger(CampaignDeliveryEvents.name);

  constructor(
    private readonly receipts: DeliveryReceiptsRepository,
    private readonly dispatcher: CampaignDispatcher,
  ) {}

  /** Returns the key ids that matched a sent contact. */
  applyReceipts(tx: Transaction, receipts: Receipt[]): Promise<Set<string>> {
    return this.receipts.apply(tx, receipts);
  }

  /** Counts the opt-out on the campaign whose message the person answered (null: none). */
  countOptOut(
    tx: Transaction,
    companyId: number,
    gatewayConfigId: number,
    phones: string[],
  ): Promise<{ campaignId: number; automationRunId: string | null } | null> {
    return this.receipts.countOptOut(tx, companyId, gatewayConfigId, phones);
  }

  /** The instance closed: its campaigns stop sending now instead of on their next failed send. */
  async instanceClosed(gatewayConfigId: number): Promise<void> {
    const held = await this.receipts.holdForClosedInstance(
      gatewayConfigId,
      CLOSED_INSTANCE_RECHECK_SECONDS,
    );
    this.logger.warn(
      { gatewayConfigId, campaigns: held },
      'Instance closed: campaigns wait for it',
    );
  }

  async instanceOpened(gatewayConfigId: number): Promise<void> {
    await this.receipts.releaseForOpenInstance(gatewayConfigId);
  }

  /**
   * Logged out, a ban signal: nothing will send until a person reconnects the number, looks
   * and resumes (an automation's run, which nobody resumes, fails instead).
   */
  async instanceLoggedOut(gatewayConfigId: number): Promise<void> {
    for (const campaignId of await this.receipts.liveCampaignIds(gatewayConfigId)) {
      await this.dispatcher.pauseCampaignNow(campaignId, LOGGED_OUT_REASON);
    }
  }
}
