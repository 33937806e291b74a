import { Injectable } from '@nestjs/common';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { CompanySession } from '../../../common/session/company-session';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import { Clock } from '../../../common/time/clock';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import {
  CopiedContacts,
  CopyMode,
  NothingToCopyError,
  copyOf,
  defaultCopyName,
} from '../domain/campaign-copies';
import {
  CampaignNotDeletableError,
  CampaignSendsUnsettledError,
  isDeletable,
} from '../domain/campaign-deletion';
import { Campaign } from '../domain/campaign.entity';
import { isPool } from '../domain/sender-pool';
import { CampaignCopiesRepository } from '../infrastructure/campaign-copies.repository';
import { CampaignDeletionsRepository } from '../infrastructure/campaign-deletions.repository';
import { CAMPAIGN_KIND, CampaignsRepository } from '../infrastructure/campaigns.repository';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';
import { CampaignDeletionsWorker } from './campaign-deletions.worker';
import { CampaignPools } from './campaign-pools';

export interface DuplicateCampaignCommand {
  name?: string;
  contacts: CopyMode;
}

/**
 * A person's follow-up of a campaign (a DRAFT copy holding some of its contacts) and deletion
 * of a campaign (docs/API-RULES.md, "Follow-ups and deletion").
 */
@Injectable()
export class CampaignCopiesService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly campaigns: CampaignsRepository,
    private readonly copies: CampaignCopiesRepository,
    private readonly deletions: CampaignDeletionsRepository,
    private readonly senderPools: SenderPoolsRepository,
    private readonly pools: CampaignPools,
    private readonly settings: CompanySettingsService,
    private readonly deletionsWorker: CampaignDeletionsWorker,
    private readonly clock: Clock,
  ) {}

  /**
   * A DRAFT copy of the campaign with the contacts the mode picks, in one transaction: none to
   * copy (409) creates nothing. Not a creation that counts against the hourly limit until it
   * is launched, as any draft.
   */
  async duplicate(
    session: CompanySession,
    id: number,
    command: DuplicateCampaignCommand,
  ): Promise<{ campaign: Campaign; contacts: CopiedContacts }> {
    const original = await this.campaigns.findOwnedOrFail(session.companyId, id);
    const company = await this.settings.get(session.companyId);
    const name = command.name?.trim() || defaultCopyName(original.name);
    const result = await this.unitOfWork.run(async (tx) => {
      if (!(await this.copies.holdOriginal(tx, id))) {
        throw new ResourceNotFoundError(CAMPAIGN_KIND); // deleted since it was read
      }
      const { copy, sourceIds } = await this.saveCopy(tx, original, name);
      const contacts = await this.copies.copyContacts(tx, {
        copyId: copy.id,
        companyId: session.companyId,
        sourceIds,
        mode: command.contacts,
        pool: isPool(copy),
        applyBlockList: company.blockedContactsEnabled,
      });
      if (contacts.copied === 0) {
        throw new NothingToCopyError(command.contacts, contacts); // rolls the copy back
      }
      await this.writeCounts(tx, copy, contacts);
      return { campaign: copy, contacts };
    });
    await this.pools.withSenders(result.campaign);
    return result;
  }

  /**
   * Deletes a DRAFT or ended campaign: gone from every read when this answers, its contacts
   * removed in batches afterwards (CampaignDeletionsWorker). 409, nothing changed, for a
   * campaign that may still send or whose last messages are still being confirmed.
   */
  async delete(session: CompanySession, id: number): Promise<void> {
    await this.campaigns.findOwnedOrFail(session.companyId, id);
    await this.unitOfWork.run(async (tx) => {
      const status = await this.deletions.lockForDeletion(tx, session.companyId, id);
      if (status === null) {
        throw new ResourceNotFoundError(CAMPAIGN_KIND); // deleted by a request just before
      }
      if (!isDeletable(status)) {
        throw new CampaignNotDeletableError(status);
      }
      const unsettled = await this.deletions.unsettledSends(tx, id);
      if (unsettled > 0) {
        throw new CampaignSendsUnsettledError(unsettled);
      }
      await this.deletions.delete(tx, session.companyId, id);
    });
    this.deletionsWorker.wake();
  }

  /** The copy's row (a pool's with its senders, on the same numbers in the same order). */
  private async saveCopy(
    tx: Transaction,
    original: Campaign,
    name: string,
  ): Promise<{ copy: Campaign; sourceIds: number[] }> {
    const now = this.clock.now();
    if (!isPool(original)) {
      const copy = Campaign.create(copyOf(original, name, original.gatewayConfig), now);
      await this.campaigns.save(tx, copy);
      return { copy, sourceIds: [original.id] };
    }
    const senders = await this.copies.sendersOf(tx, original.id);
    const configs = senders.map((sender) => sender.config);
    const copy = Campaign.create(copyOf(original, name, configs[0]), now);
    await this.pools.saveWithSenders(tx, copy, configs);
    return { copy, sourceIds: senders.map((sender) => sender.id) };
  }

  private async writeCounts(
    tx: Transaction,
    copy: Campaign,
    contacts: CopiedContacts,
  ): Promise<void> {
    const skipped = contacts.blocked + contacts.optedOut;
    copy.totalContacts = contacts.copied;
    copy.blockedContactsRemoved = skipped;
    if (isPool(copy)) {
      await this.senderPools.setContactCounts(tx, copy.id, skipped);
    } else {
      await this.campaigns.setContactCounts(tx, copy.id, contacts.copied, skipped);
    }
  }
}
