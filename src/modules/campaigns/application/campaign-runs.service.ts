import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { Campaign, NewCampaign } from '../domain/campaign.entity';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';
import type { GatewayConfigSummary } from '../../gateway/application/gateway-configs.service';
import { isPool } from '../domain/sender-pool';
import { CampaignPools } from './campaign-pools';

/**
 * Campaigns that carry another module's sends (an automation run's): the automations module
 * opens, fills, launches and cancels them through here, in its own transaction, and never
 * writes the campaigns' tables itself. They go through the same engine as any campaign (pacing,
 * retries, at-most-once sending) and are hidden from /api/campaigns.
 */
@Injectable()
export class CampaignRuns {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly pools: CampaignPools,
    private readonly poolRows: SenderPoolsRepository,
  ) {}

  /**
   * Creates the run's campaign (ACTIVE, no contacts yet): on one number (`gateway` of
   * `props`), or on a pool of them when `pool` names more than its configuration
   * (domain/sender-pool.ts; `pool` in order, its first is `props.gateway`).
   */
  async open(
    tx: Transaction,
    props: NewCampaign,
    runId: string,
    now: Date,
    pool: readonly GatewayConfigSummary[] | null = null,
  ): Promise<Campaign> {
    const campaign = Campaign.create(props, now);
    campaign.automationRunId = runId;
    if (pool) {
      await this.pools.saveWithSenders(tx, campaign, pool);
      return campaign;
    }
    return this.campaigns.save(tx, campaign);
  }

  /**
   * The one way another module adds contacts: an INSERT of the rows of the CTE `source`
   * (columns id, phone, name) as the campaign's contacts, in `source`'s id order, one row
   * RETURNED per contact; on a pool, each given to one sender (poolContactsInsertSql).
   */
  contactsInsertSql(
    campaign: Campaign,
    source: string,
    campaignIdParam: string,
    companyIdParam: string,
  ): string {
    return isPool(campaign)
      ? this.poolRows.contactsInsertSql(source, campaignIdParam, companyIdParam)
      : this.campaigns.contactsInsertSql(source, campaignIdParam, companyIdParam);
  }

  /** Sets the number of contacts and wakes the dispatch loops of every instance. */
  async launch(tx: Transaction, campaign: Campaign, totalContacts: number): Promise<void> {
    if (isPool(campaign)) {
      await this.poolRows.setContactCounts(tx, campaign.id, 0);
    } else {
      await this.campaigns.setContactCounts(tx, campaign.id, totalContacts, 0);
    }
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
