import { Injectable } from '@nestjs/common';
import { Clock } from '../../../common/time/clock';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import { senderLostEvent } from '../domain/campaign-events';
import { senderLostNotice } from '../domain/campaign-notices';
import { SenderFailoverRepository } from '../infrastructure/sender-failover.repository';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import type { CampaignCounters, DispatchCampaign } from '../domain/dispatch-records';
import { PoolFigures, PoolMove, poolMoveOf } from '../domain/sender-pool';
import { DispatchClaimRepository } from '../infrastructure/dispatch-claim.repository';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { SENDER_POOLS_CHANNEL } from './ports/dispatch-channel';
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
    private readonly failover: SenderFailoverRepository,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
    private readonly clock: Clock,
    private readonly campaigns: CampaignsRepository,
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
        break;
      }
      afterId = pools[pools.length - 1].id;
    }
    for (const back of await this.failover.pausedPoolsWithSenderBack(POOLS_PER_READ)) {
      await this.unitOfWork.run((tx) => this.resume(tx, back.poolId, back.senderId));
    }
    return null;
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
      case 'stop':
        return this.stop(tx, pool, move.senderId);
      case 'lose':
        await this.failover.markLost(tx, move.senderId, LOCKED_REASON, 'LOCKED');
        return this.failOver(tx, pool, figures, move.senderId);
      case 'fail_over':
        return this.failOver(tx, pool, figures, move.senderId);
      case 'rejoin':
        await this.rejoin(tx, pool, move.senderId);
        return;
      case 'progress':
        await this.transitions.progress(tx, pool, countersOf(figures, pool.status));
        return;
      case 'none':
        return;
    }
  }

  /** The engine stopped a sender for the whole campaign: the pool stops, naming the number. */
  private async stop(tx: Transaction, pool: DispatchCampaign, senderId: number): Promise<void> {
    const sender = await this.pools.stoppedSender(tx, senderId);
    if (sender) {
      const reason = `Número ${sender.instance}: ${sender.reason ?? 'pausado'}`;
      await this.transitions.pause(tx, pool, reason);
    }
  }

  /**
   * A lost sender's contacts go to the healthy senders, with the pool's sender_lost event and
   * notice; with none left, the pool pauses until one comes back.
   */
  private async failOver(
    tx: Transaction,
    pool: DispatchCampaign,
    figures: PoolFigures,
    senderId: number,
  ): Promise<void> {
    const sender = await this.pools.senderOf(tx, senderId);
    const { moved, healthy } = await this.failover.moveStranded(tx, pool.id, senderId);
    if (healthy === 0) {
      const reason = `Nenhum número do pool pode enviar (o último perdido: ${sender.instance}, ${sender.reason})`;
      await this.transitions.pause(tx, pool, reason);
      await this.failover.markPoolWithoutSenders(tx, pool.id, true);
      return;
    }
    if (moved === 0) {
      return;
    }
    this.logger.warn(
      { poolId: pool.id, senderId, instance: sender.instance, moved },
      'A sender of a pool was lost: its pending contacts went to the others',
    );
    const now = this.clock.now();
    const lost = { ...sender, movedContacts: moved, sendersLeft: healthy };
    if (pool.automationRunId === null) {
      await this.outbox.append(tx, [senderLostEvent(pool, figures, now, lost)]);
    }
    await this.announceLoss(tx, pool, sender, moved);
    await this.campaigns.announce(tx);
  }

  /** The loss's notice, through a number of the pool still sending. */
  private async announceLoss(
    tx: Transaction,
    pool: DispatchCampaign,
    sender: { instance: string; reason: string; lostAt: Date },
    moved: number,
  ): Promise<void> {
    const through = await this.pools.sendingConfig(tx, pool.id);
    if (pool.notificationPhone && through !== null) {
      await this.notices.enqueue(tx, {
        companyId: pool.companyId,
        gatewayConfigId: through,
        phoneNumber: pool.notificationPhone,
        ...senderLostNotice(pool, sender, moved),
      });
    }
  }

  private async rejoin(tx: Transaction, pool: DispatchCampaign, senderId: number): Promise<void> {
    const taken = await this.failover.rejoin(tx, pool.id, senderId);
    this.logger.log({ poolId: pool.id, senderId, taken }, 'A sender of a pool is back');
    await this.campaigns.announce(tx);
  }

  /** A pool paused for want of senders resumes once one is back, which takes its share. */
  private async resume(tx: Transaction, poolId: number, senderId: number): Promise<void> {
    const pool = await this.claims.lockCampaign(tx, poolId);
    if (pool && (await this.pools.resume(tx, poolId))) {
      // A sender never lost takes the stranded contacts at the next step (fail_over).
      await this.rejoin(tx, pool, senderId);
    }
  }
}

/** Why a sender whose number WhatsApp locked for reach-out is lost. */
const LOCKED_REASON =
  'o WhatsApp bloqueou o número para quem não conversa com ele (erro 463); ele segue só com os contatos quentes';

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
