import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import type { CampaignCounters, ContactToSend, DispatchCampaign } from '../domain/dispatch-records';

/**
 * Other modules' part in a send, inside the engine's own transaction: automations keep their
 * sent-log and run records this way, without the engine knowing about them.
 */
export interface CampaignLifecycleListener {
  /** Whether contactSent has work for this campaign; without it, sends skip a transaction. */
  followsContactsOf?(campaign: DispatchCampaign): boolean;
  contactSent?(tx: Transaction, campaign: DispatchCampaign, contact: ContactToSend): Promise<void>;
  campaignEnded?(
    tx: Transaction,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
    reason: string | null,
  ): Promise<void>;
}

@Injectable()
export class CampaignLifecycle {
  private readonly listeners: CampaignLifecycleListener[] = [];

  register(listener: CampaignLifecycleListener): void {
    this.listeners.push(listener);
  }

  followsContactsOf(campaign: DispatchCampaign): boolean {
    return this.listeners.some(
      (listener) => listener.contactSent && (listener.followsContactsOf?.(campaign) ?? true),
    );
  }

  async contactSent(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): Promise<void> {
    for (const listener of this.listeners) {
      await listener.contactSent?.(tx, campaign, contact);
    }
  }

  async campaignEnded(
    tx: Transaction,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
    reason: string | null,
  ): Promise<void> {
    for (const listener of this.listeners) {
      await listener.campaignEnded?.(tx, campaign, counters, reason);
    }
  }
}
