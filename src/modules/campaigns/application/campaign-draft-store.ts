import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import type { GatewayConfigSummary } from '../../gateway/application/gateway-configs.service';
import type { CampaignDefinition } from '../domain/campaign-draft';
import type { Campaign } from '../domain/campaign.entity';
import { CampaignChangedMeanwhileError, NoValidContactsError } from '../domain/campaign.errors';
import { isPool } from '../domain/sender-pool';
import { CampaignDraftsRepository } from '../infrastructure/campaign-drafts.repository';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';
import { CampaignPools } from './campaign-pools';

/** A checked edit of a campaign not sent yet, ready to be written. */
export interface CampaignEdit {
  definition: CampaignDefinition;
  /**
   * The numbers it sends through when the edit named them (a pool's in order, or one): null
   * when it keeps its own.
   */
  senders: { configs: GatewayConfigSummary[]; pool: boolean } | null;
  /** The contacts that replace its own (normalized), or null: it keeps them. */
  contacts: { phones: string[]; names: string[] } | null;
  applyBlockList: boolean;
}

/** Contacts to insert, and how many numbers the block list had already left out of them. */
interface ContactsToInsert {
  phones: string[];
  names: string[];
  blockedBefore: number;
}

/**
 * Writes an edit and a launch of a campaign not sent yet (docs/API-RULES.md, "Drafts: edit and
 * launch"), under the campaign's row lock the caller holds. A pool's senders are its copies on
 * one number each, and every contact belongs to one sender: when the numbers change, the
 * senders are made again and the contacts given to them again, by creation's own rules.
 */
@Injectable()
export class CampaignDraftStore {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly drafts: CampaignDraftsRepository,
    private readonly senderPools: SenderPoolsRepository,
    private readonly pools: CampaignPools,
  ) {}

  /** The edit made on `locked` (its status checked again under the lock) and written. */
  async saveEdit(tx: Transaction, locked: Campaign, edit: CampaignEdit, now: Date): Promise<void> {
    const wasPool = isPool(locked);
    const senders = wasPool ? await this.drafts.lockSenders(tx, locked.id) : [];
    // A scheduled pool's senders start on their own: one the engine started while this request
    // held the pool's row is sending, and its contacts are no longer the edit's to replace.
    if (senders.some((sender) => sender.status !== locked.status)) {
      throw new CampaignChangedMeanwhileError();
    }
    const before = wasPool ? senders.map((s) => s.gatewayConfigId) : [locked.gatewayConfigId];
    const sendersChanged =
      edit.senders !== null &&
      (edit.senders.pool !== wasPool ||
        edit.senders.configs.map((c) => c.id).join() !== before.join());
    locked.redefine(edit.definition, now);
    if (edit.contacts === null && !sendersChanged) {
      await this.drafts.saveDefinition(tx, locked);
      if (wasPool) {
        await this.drafts.copyDefinition(tx, locked.id);
      }
      return;
    }
    const holders = wasPool ? senders.map((s) => s.id) : [locked.id];
    const contacts: ContactsToInsert = edit.contacts
      ? { ...edit.contacts, blockedBefore: 0 }
      : {
          ...(await this.drafts.contactsOf(tx, holders)),
          blockedBefore: locked.blockedContactsRemoved,
        };
    if (wasPool && sendersChanged) {
      await this.drafts.deleteSenders(tx, locked.id);
    } else {
      await this.drafts.deleteContacts(tx, holders);
    }
    const pool = edit.senders?.pool ?? wasPool;
    locked.poolId = pool ? locked.id : null;
    await this.drafts.saveDefinition(tx, locked);
    if (pool && (sendersChanged || !wasPool) && edit.senders) {
      await this.pools.addSenders(tx, locked, edit.senders.configs);
    } else if (pool) {
      await this.drafts.copyDefinition(tx, locked.id);
    }
    await this.insertContacts(tx, locked, contacts, edit.applyBlockList);
  }

  /** Its contacts again, by creation's rules (a pool's given to its senders), and their counts. */
  private async insertContacts(
    tx: Transaction,
    campaign: Campaign,
    contacts: ContactsToInsert,
    applyBlockList: boolean,
  ): Promise<void> {
    const inserted = isPool(campaign)
      ? await this.senderPools.insertContacts(
          tx,
          campaign.companyId,
          campaign.id,
          contacts,
          applyBlockList,
        )
      : await this.campaigns.insertContacts(tx, campaign, contacts, applyBlockList);
    if (inserted === 0) {
      throw new NoValidContactsError('Todos os contatos válidos estão na lista de bloqueio');
    }
    campaign.totalContacts = inserted;
    campaign.blockedContactsRemoved = contacts.blockedBefore + contacts.phones.length - inserted;
    await this.writeCounts(tx, campaign);
  }

  /**
   * A launch leaves out the numbers blocked since the draft was saved, as its creation would
   * have (when the company uses its block list); nobody left is refused, changing nothing.
   */
  async dropBlocked(tx: Transaction, campaign: Campaign, holders: number[]): Promise<void> {
    const dropped = await this.drafts.dropBlockedContacts(tx, campaign.companyId, holders);
    if (dropped === 0) {
      return;
    }
    campaign.totalContacts -= dropped;
    campaign.blockedContactsRemoved += dropped;
    if (campaign.totalContacts <= 0) {
      throw new NoValidContactsError('Todos os contatos válidos estão na lista de bloqueio');
    }
    await this.writeCounts(tx, campaign);
  }

  /** The campaign's contact counts; a pool's senders' counted again from their contacts. */
  private async writeCounts(tx: Transaction, campaign: Campaign): Promise<void> {
    if (isPool(campaign)) {
      await this.senderPools.setContactCounts(tx, campaign.id, campaign.blockedContactsRemoved);
    } else {
      await this.campaigns.setContactCounts(
        tx,
        campaign.id,
        campaign.totalContacts,
        campaign.blockedContactsRemoved,
      );
    }
  }
}
