import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { SenderFailoverRepository } from '../infrastructure/sender-failover.repository';
import { Metrics } from '../../../common/metrics/metrics';
import type { ReachOutSettings } from '../../../common/messaging/reach-out';
import type { Transaction } from '../../../common/persistence/transaction';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import { AppConfig } from '../../../config/app-config.service';
import { GatewayConfigUsageRegistry } from '../../gateway/application/gateway-config-usage.registry';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { REACHOUT_LOCKED_CODE, ReachOutLock } from '../../gateway/domain/reach-out-lock';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import { reachOutLockedNotice } from '../domain/campaign-notices';
import type {
  AppliedReceipts,
  BilledMessage,
  CallbackReceipt,
  Receipt,
  RefusedSend,
} from '../domain/delivery-receipt';
import { DeliveryReceiptsRepository } from '../infrastructure/delivery-receipts.repository';
import {
  InboundMessage,
  RecordedReply,
  ReachOutRepository,
} from '../infrastructure/reach-out.repository';
import { CampaignDispatcher } from './campaign-dispatcher';

export type {
  AppliedReceipts,
  BilledMessage,
  CallbackReceipt,
  Receipt,
  RefusedSend,
} from '../domain/delivery-receipt';
export type { InboundMessage, RecordedReply } from '../infrastructure/reach-out.repository';

/** How soon a campaign held for a closed instance looks again if no "open" event comes. */
const CLOSED_INSTANCE_RECHECK_SECONDS = 60;
export const LOGGED_OUT_REASON =
  'a instância do WhatsApp saiu da conta (logout): conecte o número de novo no gateway e retome a campanha';

/**
 * What the gateway's events mean for campaigns, for the module that receives them: receipts,
 * the campaign a person answered when opting out, and the instance's connection.
 */
@Injectable()
export class CampaignDeliveryEvents implements OnModuleInit {
  private readonly logger = new Logger(CampaignDeliveryEvents.name);

  constructor(
    private readonly receipts: DeliveryReceiptsRepository,
    private readonly reachOut: ReachOutRepository,
    private readonly dispatcher: CampaignDispatcher,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly registry: GatewayConfigUsageRegistry,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
    private readonly failover: SenderFailoverRepository,
  ) {}

  onModuleInit(): void {
    this.registry.onReachOutLifted((configIds) => this.reachOut.wake(configIds));
  }

  /**
   * Applies the receipts and records what Meta charged for (DeliveryReceiptsRepository.apply):
   * the key ids that matched a sent contact, and the messages WhatsApp refused.
   */
  applyReceipts(
    tx: Transaction,
    receipts: Receipt[],
    billed: BilledMessage[],
  ): Promise<AppliedReceipts> {
    return this.receipts.apply(tx, receipts, billed);
  }

  /** Uncertain sends a status named by their contact's id: see DeliveryReceiptsRepository.resolveByCallback. */
  resolveByCallback(tx: Transaction, receipts: CallbackReceipt[]): Promise<number> {
    return this.receipts.resolveByCallback(tx, receipts);
  }

  /**
   * The gateway says these configurations must stop sending (with a template: that template)
   * for now: their ACTIVE campaigns pause with the reason, as a logged-out instance's do.
   * Answers the campaigns paused.
   */
  async pauseActiveCampaigns(
    companyId: number,
    gatewayConfigIds: number[],
    reason: string,
    template?: { name: string; language: string },
  ): Promise<number[]> {
    const ids = await this.receipts.activeCampaignIds(companyId, gatewayConfigIds, template);
    for (const campaignId of ids) {
      await this.dispatcher.pauseCampaignNow(campaignId, reason);
    }
    return ids;
  }

  /**
   * What refused messages do to each instance's reach-out lock (docs/ARCHITECTURE.md, "Replies,
   * warm contacts and the reach-out lock"), with the receipts' transaction: a new or wider lock
   * is announced (`gateway.restricted`, a notice per live campaign with a notification phone,
   * the metric), and one on everything holds the instance's campaigns until it ends.
   */
  async refusalsReceived(
    tx: Transaction,
    refused: RefusedSend[],
    settingsOf: (companyId: number) => Promise<ReachOutSettings>,
  ): Promise<void> {
    for (const [gatewayConfigId, sends] of groupByInstance(refused)) {
      const settings = await settingsOf(sends[0].companyId);
      const lock = await this.gatewayConfigs.refusalsReceived(
        tx,
        gatewayConfigId,
        {
          reachOutCode: sends.some((send) => send.code === REACHOUT_LOCKED_CODE),
          warm: sends.some((send) => send.warm),
          coldRefusedInSample: await this.reachOut.coldRefusedInSample(
            tx,
            gatewayConfigId,
            settings.lockSample,
          ),
        },
        { threshold: settings.lockRefusals, cooldownSeconds: settings.lockCooldownHours * 3_600 },
      );
      if (lock) {
        await this.announceLock(tx, sends[0].companyId, gatewayConfigId, lock);
      }
    }
  }

  private async announceLock(
    tx: Transaction,
    companyId: number,
    gatewayConfigId: number,
    lock: ReachOutLock,
  ): Promise<void> {
    this.logger.warn(
      { gatewayConfigId, scope: lock.scope, cause: lock.cause, seconds: lock.seconds },
      'Reach-out lock: the instance may not message people who have not talked with it',
    );
    this.metrics.countReachOutLock(lock.cause);
    if (lock.scope === 'ALL') {
      await this.reachOut.holdInstance(tx, gatewayConfigId, lock.lockedUntil);
    }
    await this.outbox.append(tx, [
      {
        companyId,
        campaignId: null,
        eventType: 'gateway.restricted',
        payload: {
          event: 'gateway.restricted',
          companyId,
          gatewayConfigId,
          scope: lock.scope,
          cause: lock.cause,
          lockedAt: lock.lockedAt.toISOString(),
          lockedUntil: lock.lockedUntil.toISOString(),
          timestamp: lock.lockedAt.toISOString(),
        },
      },
    ]);
    const until = formatLocalDateTime(lock.lockedUntil, this.config.appTimezone) as string;
    for (const campaign of await this.reachOut.noticeRecipients(tx, gatewayConfigId)) {
      const notice = reachOutLockedNotice(campaign, lock, until);
      await this.notices.enqueue(tx, {
        companyId,
        gatewayConfigId,
        phoneNumber: campaign.notificationPhone,
        ...notice,
      });
    }
  }

  /** People wrote to the instances: see ReachOutRepository.recordInbound. */
  recordInbound(tx: Transaction, messages: InboundMessage[]): Promise<RecordedReply[]> {
    return this.reachOut.recordInbound(tx, messages);
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
    // A pool's senders on it are lost, even one done with its share: no contact goes to them.
    await this.failover.markLostOnInstance(gatewayConfigId, LOGGED_OUT_REASON);
    for (const campaignId of await this.receipts.liveCampaignIds(gatewayConfigId)) {
      await this.dispatcher.pauseCampaignNow(campaignId, LOGGED_OUT_REASON);
    }
  }
}

function groupByInstance(refused: RefusedSend[]): Map<number, RefusedSend[]> {
  const byInstance = new Map<number, RefusedSend[]>();
  for (const send of refused) {
    byInstance.set(send.gatewayConfigId, [...(byInstance.get(send.gatewayConfigId) ?? []), send]);
  }
  return byInstance;
}
