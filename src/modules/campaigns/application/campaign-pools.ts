import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import type { GatewayConfigSummary } from '../../gateway/application/gateway-configs.service';
import type { CampaignAction } from '../domain/campaign-status';
import { Campaign, type WaitingReason } from '../domain/campaign.entity';
import { NoValidContactsError } from '../domain/campaign.errors';
import { isPool, PoolSender, poolCounters, senderStateOf } from '../domain/sender-pool';
import { CampaignsRepository, RetriedFailures } from '../infrastructure/campaigns.repository';
import type { ContactFailureKind } from '../domain/contact-failure-kind';
import { progressStepOf } from '../domain/campaign-stats';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';

/**
 * Campaigns on a pool of senders (domain/sender-pool.ts), as the campaign API sees them: their
 * creation (the pool's row, one row per sender, each contact given to one sender), their
 * figures (the senders' sums) and a person's moves, which the senders follow.
 */
@Injectable()
export class CampaignPools {
  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly pools: SenderPoolsRepository,
  ) {}

  /**
   * Saves the pool `pool` (not saved yet) with one sender per configuration, in their order,
   * and gives each contact one of them. Answers how many contacts it holds; none (all blocked)
   * is refused, which rolls everything back.
   */
  async persistNew(
    tx: Transaction,
    pool: Campaign,
    configs: readonly GatewayConfigSummary[],
    contacts: { phones: string[]; names: string[] },
    applyBlockList: boolean,
  ): Promise<number> {
    await this.saveWithSenders(tx, pool, configs);
    const inserted = await this.pools.insertContacts(
      tx,
      pool.companyId,
      pool.id,
      contacts,
      applyBlockList,
    );
    if (inserted === 0) {
      throw new NoValidContactsError('Todos os contatos válidos estão na lista de bloqueio');
    }
    pool.totalContacts = inserted;
    pool.blockedContactsRemoved = contacts.phones.length - inserted;
    await this.pools.setPoolCounts(tx, pool.id, inserted, pool.blockedContactsRemoved);
    return inserted;
  }

  /**
   * Saves the pool `pool` (not saved yet) and one sender per configuration, in their order; the
   * pool's row becomes the pool with its contact counts (SenderPoolsRepository.setContactCounts).
   */
  async saveWithSenders(
    tx: Transaction,
    pool: Campaign,
    configs: readonly GatewayConfigSummary[],
  ): Promise<void> {
    await this.campaigns.save(tx, pool);
    await this.addSenders(tx, pool, configs);
  }

  /**
   * One sender per configuration, in their order, for the saved campaign `pool`, which becomes
   * the pool (its row's pool_id is the caller's to write); its contacts are the caller's too.
   */
  async addSenders(
    tx: Transaction,
    pool: Campaign,
    configs: readonly GatewayConfigSummary[],
  ): Promise<void> {
    pool.poolId = pool.id;
    await this.campaigns.saveAll(
      tx,
      configs.map((config) => senderOf(pool, config)),
    );
  }

  /**
   * Reads the senders of the pools among `campaigns` and shows each pool with them, its
   * counters the sums of theirs (receipts keep landing on a sender after the pool ended).
   */
  async withSenders<T extends Campaign | Campaign[]>(campaigns: T): Promise<T> {
    const list: Campaign[] = Array.isArray(campaigns) ? campaigns : [campaigns];
    const pools = list.filter(isPool);
    const senders = await this.pools.sendersOf(pools.map((pool) => pool.id));
    for (const pool of pools) {
      const own = senders.filter((sender) => sender.poolId === pool.id);
      Object.assign(pool, poolCounters(own), {
        waitingReason: sharedWaitOf(own),
        nextSendAt: null,
      });
      pool.senders = own;
    }
    return campaigns;
  }

  /**
   * A person's retry of a finished pool (the caller holds its row and made its move): each
   * ended sender's failures as CampaignsRepository.retryFailed takes them back, and those
   * senders ACTIVE again (one with nothing to send completes again at once). The pool's
   * counters after it are its senders' sums.
   */
  async retryFailed(
    tx: Transaction,
    pool: Campaign,
    kinds: readonly ContactFailureKind[],
  ): Promise<RetriedFailures> {
    const moved = { retried: 0, unsent: 0, failedContacts: 0, totalContacts: 0, sentContacts: 0 };
    for (const sender of await this.pools.senderCounts(tx, pool.id)) {
      const retried = sender.ended
        ? await this.campaigns.retryFailed(tx, sender.id, kinds)
        : { retried: 0, unsent: 0, failedContacts: sender.failedContacts };
      moved.retried += retried.retried;
      moved.unsent += retried.unsent;
      moved.failedContacts += retried.failedContacts;
      moved.totalContacts += sender.totalContacts;
      moved.sentContacts += sender.sentContacts;
    }
    await this.pools.moveSenders(tx, pool.id, 'retry');
    return { ...moved, progressStep: progressStepOf(moved) };
  }

  /** A person's move of a pool, made on its senders too (the caller holds the pool's row). */
  async follow(tx: Transaction, campaign: Campaign, action: CampaignAction): Promise<void> {
    if (isPool(campaign)) {
      await this.pools.moveSenders(tx, campaign.id, action);
    }
  }
}

/**
 * Why the pool waits: the reason every sender still sending waits for, when they share one
 * (each sender's own wait is in its entry of `senders`); its next send is each sender's own.
 */
function sharedWaitOf(senders: readonly PoolSender[]): WaitingReason | null {
  const sending = senders.filter((sender) => senderStateOf(sender) === 'SENDING');
  const reasons = new Set(sending.map((sender) => sender.waitingReason));
  return sending.length > 0 && reasons.size === 1
    ? ([...reasons][0] as WaitingReason | null)
    : null;
}

/** A sender of `pool` through `config`: the pool's campaign, on that number, never shown. */
function senderOf(pool: Campaign, config: GatewayConfigSummary): Campaign {
  const sender = Object.assign(new Campaign(), pool, {
    gatewayConfigId: config.id,
    gatewayName: config.name,
    gatewayUrl: config.url,
    gatewayInstance: config.instance,
    poolId: pool.id,
  });
  delete (sender as Partial<Campaign>).id;
  delete sender.senders;
  return sender;
}

export type { PoolSender };
