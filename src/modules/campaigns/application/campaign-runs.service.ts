import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { Campaign, NewCampaign } from '../domain/campaign.entity';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';

/**
 * Campaigns that carry another module's sends (an automation run's): the automations module
 * opens, fills, launches and cancels them through here, in its own transaction, and never
 * writes the campaigns' tables itself. They go through the same engine as any campaign (pacing,
 * retries, at-most-once sending) and are hidden from /api/campaigns.
 */
@Injectable()
export class CampaignRuns {
  constructor(private readonly campaigns: CampaignsRepository) {}

  /** Creates the run's campaign (ACTIVE, no contacts yet). */
  open(tx: Transaction, props: NewCampaign, runId: string, now: Date): Promise<Campaign> {
    const campaign = Campaign.create(props, now);
    campaign.automationRunId = runId;
    return this.campaigns.save(tx, campaign);
  }

  /** See CampaignsRepository.contactsInsertSql: the one way another module adds contacts. */
  contactsInsertSql(source: string, campaignIdParam: string, companyIdParam: string): string {
    return this.campaigns.contactsInsertSql(source, campaignIdParam, companyIdParam);
  }

  /** Sets the number of contacts and wakes the dispatch loops of every instance. */
  async launch(tx: Transaction, campaignId: number, totalContacts: number): Promise<void> {
    await this.campaigns.setContactCounts(tx, campaignId, totalContacts, 0);
    await this.campaigns.announce(tx);
  }

  /** Nobody to send to: the campaign is not kept. */
  discard(tx: Transaction, campaignId: number): Promise<void> {
    return this.campaigns.discard(tx, campaignId);
  }

  /** Cancels the runs' campaigns still sending (Campaign.cancel), e.g. when their automation goes. */
  async cancelForRuns(tx: Transaction, runIds: string[], now: Date): Promise<void> {
    if (runIds.length === 0) {
      return;
    }
    for (const campaign of await this.campaigns.lockSendingForRuns(tx, runIds)) {
      campaign.cancel(now);
      await this.campaigns.saveTransition(tx, campaign);
    }
  }
}
