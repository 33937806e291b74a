import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { PgNotifications } from '../../../common/work/pg-notifications';
import { WorkLoop } from '../../../common/work/work-loop';
import { WorkLoopRunner } from '../../../common/work/work-loop-runner';
import { AppConfig } from '../../../config/app-config.service';
import { BlockListService } from '../../blocked-contacts/application/block-list.service';
import {
  CampaignDeliveryEvents,
  Receipt,
} from '../../campaigns/application/campaign-delivery-events';
import { candidateJids } from '../../campaigns/domain/whatsapp-jid';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import {
  connectionOf,
  isOptOut,
  LOGGED_OUT_STATUS,
  receiptOf,
  replyOf,
} from '../domain/gateway-event';
import { GatewayEventsRepository, StoredGatewayEvent } from './ports/gateway-events.repository';
import { GATEWAY_EVENTS_CHANNEL } from './ports/gateway-events.repository';

const BATCH = 500;
/** A receipt whose send is not recorded yet (it can beat the send's own answer) waits this long. */
const EARLY_RECEIPT_RETRY_MS = 2_000;
const EARLY_RECEIPT_ATTEMPTS = 30;

interface Stamped {
  at?: string;
}

/**
 * Processes stored gateway events in batches, in one transaction each: receipts set-based,
 * opt-out replies and connection changes one by one. Every step is idempotent, so a batch
 * processed twice (a crash before its commit) changes nothing more.
 */
@Injectable()
export class GatewayEventProcessor
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger(GatewayEventProcessor.name);
  private readonly loop = new WorkLoop('gateway-events', () => this.step(), { idleMs: 1_000 });
  private readonly loopRunner = new WorkLoopRunner(this.loop, this.config, {
    notifications: this.notifications,
    channel: GATEWAY_EVENTS_CHANNEL,
  });

  constructor(
    private readonly events: GatewayEventsRepository,
    private readonly campaigns: CampaignDeliveryEvents,
    private readonly blockList: BlockListService,
    private readonly settings: CompanySettingsService,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly outbox: OutboxWriter,
    private readonly notices: NoticeQueue,
    private readonly notifications: PgNotifications,
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.loopRunner.start();
  }

  /** The first stop hook of every module: no loop claims anything from here on. */
  onModuleDestroy(): void {
    void this.loopRunner.stop();
  }

  /** While the database is still open: the step in progress ends and records its work. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loopRunner.stop();
  }

  async step(): Promise<number | null> {
    const { claimed, connections } = await this.events.transaction(async (manager) => {
      const batch = await this.events.claimDue(manager, BATCH);
      const waiting = await this.applyReceipts(manager, batch);
      for (const event of batch.filter((e) => e.event === 'messages.upsert')) {
        await this.applyReply(manager, event);
      }
      await this.events.delete(
        manager,
        batch.filter((e) => !waiting.has(e.id)).map((e) => e.id),
      );
      await this.events.retryLater(manager, [...waiting], EARLY_RECEIPT_RETRY_MS);
      return {
        claimed: batch.length,
        connections: batch.filter((e) => e.event === 'connection.update'),
      };
    });
    for (const event of connections) {
      await this.applyConnection(event);
    }
    return claimed === BATCH ? 0 : this.events.msUntilNextDue();
  }

  /** Applies the batch's receipts; answers the events whose message is not known yet. */
  private async applyReceipts(
    manager: EntityManager,
    batch: StoredGatewayEvent[],
  ): Promise<Set<string>> {
    const receipts: Array<{ event: StoredGatewayEvent; receipt: Receipt }> = [];
    for (const event of batch.filter((e) => e.event === 'messages.update')) {
      const found = receiptOf(dataOf(event));
      if (found) {
        receipts.push({
          event,
          receipt: {
            companyId: event.companyId,
            keyId: found.keyId,
            rank: found.rank,
            at: atOf(event),
          },
        });
      }
    }
    const matched = await this.campaigns.applyReceipts(
      manager,
      receipts.map((r) => r.receipt),
    );
    return new Set(
      receipts
        .filter((r) => !matched.has(r.receipt.keyId) && r.event.attempts < EARLY_RECEIPT_ATTEMPTS)
        .map((r) => r.event.id),
    );
  }

  /**
   * A reply that is one of the company's opt-out words blocks the number (so every running
   * campaign and automation skips it at its next send), is counted on the campaign answered,
   * announced to the company's webhooks and, when the company set one, confirmed once.
   */
  private async applyReply(manager: EntityManager, event: StoredGatewayEvent): Promise<void> {
    const reply = replyOf(dataOf(event));
    if (!reply) {
      return;
    }
    const company = await this.settings.get(event.companyId);
    if (!isOptOut(reply.text, company.effectiveOptOutWords)) {
      return;
    }
    if (!(await this.blockList.optOut(event.companyId, reply.phone, manager))) {
      return;
    }
    const phones = candidateJids(reply.phone).map((jid) => jid.split('@')[0]);
    const answered = await this.campaigns.countOptOut(
      manager,
      event.companyId,
      event.gatewayConfigId,
      phones,
    );
    this.logger.log(
      { companyId: event.companyId, campaignId: answered?.campaignId ?? null },
      'Opt-out by reply: number blocked',
    );
    await this.outbox.append(manager, [
      {
        companyId: event.companyId,
        campaignId: answered?.automationRunId === null ? answered.campaignId : null,
        eventType: 'contact.opted_out',
        payload: {
          event: 'contact.opted_out',
          companyId: event.companyId,
          phoneNumber: reply.phone,
          campaignId: answered?.automationRunId === null ? answered.campaignId : null,
          timestamp: atOf(event).toISOString(),
        },
      },
    ]);
    if (company.optOutConfirmation) {
      await this.notices.enqueue(manager, {
        companyId: event.companyId,
        gatewayConfigId: event.gatewayConfigId,
        phoneNumber: reply.phone,
        text: company.optOutConfirmation,
        reason: 'opt_out_confirmation',
        dedupKey: `opt-out:${event.companyId}:${reply.phone}`,
      });
    }
  }

  /** close holds the instance's campaigns at once; open releases them; a logout fails them. */
  private async applyConnection(event: StoredGatewayEvent): Promise<void> {
    const connection = connectionOf(dataOf(event));
    if (!connection) {
      return;
    }
    const recorded = await this.gatewayConfigs.recordInstanceState(
      event.gatewayConfigId,
      connection.state,
      connection.reason,
      atOf(event),
    );
    if (!recorded) {
      return;
    }
    if (connection.state === 'open') {
      await this.campaigns.instanceOpened(event.gatewayConfigId);
    } else if (connection.state === 'close' && connection.reason === LOGGED_OUT_STATUS) {
      await this.campaigns.instanceLoggedOut(event.gatewayConfigId);
    } else if (connection.state === 'close') {
      await this.campaigns.instanceClosed(event.gatewayConfigId);
    }
  }
}

function dataOf(event: StoredGatewayEvent): Record<string, unknown> {
  const data = event.payload.data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
}

/** When the event happened: the gateway's time (kept at intake), else its arrival. */
function atOf(event: StoredGatewayEvent): Date {
  const at = (event.payload as Stamped).at;
  return at ? new Date(at) : event.receivedAt;
}
