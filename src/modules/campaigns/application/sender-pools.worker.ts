import { Injectable } from '@nestjs/common';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import type { CampaignCounters } from '../domain/dispatch-records';
import { PoolFigures, PoolMove, poolMoveOf } from '../domain/sender-pool';
import { DispatchClaimRepository } from '../infrastructure/dispatch-claim.repository';
import {
  SENDER_POOLS_CHANNEL,
  SenderPoolsRepository,
} from '../infrastructure/sender-pools.repository';
import { CampaignEngineTransitions } from './campaign-engine-transitions';

/** ACTIVE pools read per statement: a step reads them all, page after page. */
const POOLS_PER_READ = 500;

/**
 * Keeps each ACTIVE campaign on a pool of senders moving as one campaign (domain/sender-pool.ts):
 * its progress events from its senders' sums, its completion once every sender is over, and
 * its pause when the engine stopped a sender. The engine sends each sender like a campaign of
 * its own and only tells the pool, by a NOTIFY, that one ended or stopped; the pool's own row is
 * written here, under its row lock, with the same events and notices as a campaign on one number.
 */
@Injectable()
export class SenderPoolsWorker extends BackgroundWorker {
  constructor(
    context: WorkerContext,
    private readonly pools: SenderPoolsRepository,
    private readonly claims: DispatchClaimRepository,
    private readonly transitions: CampaignEngineTransitions,
    private readonly unitOfWork: UnitOfWork,
  ) {
    super(context, { name: 'sender-pools', idleMs: 1_000, wakeOn: SENDER_POOLS_CHANNEL });
  }

  protected async step(): Promise<number | null> {
    for (let afterId = 0; ;) {
      const pools = await this.pools.activePools(afterId, POOLS_PER_READ);
      for (const pool of pools) {
        const move = poolMoveOf(pool);
        if (move.kind !== 'none') {
          await this.unitOfWork.run((tx) => this.apply(tx, pool, move));
        }
      }
      if (pools.length < POOLS_PER_READ) {
        return null;
      }
      afterId = pools[pools.length - 1].id;
    }
  }

  /** The move, under the pool's row lock, as of its row then (a person may have moved it). */
  private async apply(tx: Transaction, figures: PoolFigures, move: PoolMove): Promise<void> {
    const pool = await this.claims.lockCampaign(tx, figures.id);
    if (!pool || pool.status !== 'ACTIVE') {
      return;
    }
    switch (move.kind) {
      case 'complete':
        await this.transitions.complete(tx, pool);
        return;
      case 'stop': {
        const sender = await this.pools.stoppedSender(tx, move.senderId);
        if (sender) {
          const reason = `Número ${sender.instance}: ${sender.reason ?? 'pausado'}`;
          await this.transitions.pause(tx, pool, reason, true);
        }
        return;
      }
      case 'progress':
        await this.transitions.progress(tx, pool, countersOf(figures, pool.status));
        return;
      case 'none':
        return;
    }
  }
}

function countersOf(figures: PoolFigures, status: string): CampaignCounters {
  return {
    totalContacts: figures.totalContacts,
    sentContacts: figures.sentContacts,
    failedContacts: figures.failedContacts,
    progressStep: figures.progressStep,
    status,
    deliveredContacts: figures.deliveredContacts,
    readContacts: figures.readContacts,
    repliedContacts: figures.repliedContacts,
  };
}
