import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleDestroy,
} from '@nestjs/common';
import { Metrics, QUEUE_DEPTH_CAP } from '../../../common/metrics/metrics';
import { PgNotifications } from '../../../common/work/pg-notifications';
import { WorkLoop } from '../../../common/work/work-loop';
import { WorkLoopRunner } from '../../../common/work/work-loop-runner';
import { AppConfig } from '../../../config/app-config.service';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { GatewayConfigUsageRegistry } from '../../gateway/application/gateway-config-usage.registry';
import { InstancePacing } from '../../gateway/application/ports/instance-pacing';
import { WorkerLiveness } from '../../../common/work/worker-liveness';
import { GatewayError, MessagingGateway } from '../../gateway/domain/messaging-gateway';
import { ClaimedNotice, NoticesRepository } from '../infrastructure/notices.repository';

const MAX_ATTEMPTS = 5;
const RETRY_DELAY_MS = 60_000;
/** Long enough for one text message's send, its timeout included. */
const HOLD_SECONDS = 60;
export const NOTICE_CHANNEL = 'notices';

/**
 * Sends queued notices (end of campaign, failures, disconnects) through the company's gateway,
 * paced with everything else its instance sends (docs/ARCHITECTURE.md, "Keeping numbers
 * safe"): a notice holds the instance like a campaign's turn, once the instance has been quiet
 * for the shortest pause among its active senders, and counts towards its figure of the day.
 */
@Injectable()
export class NoticeWorker
  implements OnApplicationBootstrap, OnModuleDestroy, BeforeApplicationShutdown
{
  private readonly logger = new Logger(NoticeWorker.name);
  private readonly loop = new WorkLoop('notices', () => this.step(), { idleMs: 5_000 });
  private readonly loopRunner = new WorkLoopRunner(this.loop, this.config, {
    notifications: this.notifications,
    channel: NOTICE_CHANNEL,
  });

  constructor(
    private readonly notices: NoticesRepository,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly gateway: MessagingGateway,
    private readonly notifications: PgNotifications,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly pacing: InstancePacing,
    private readonly senders: GatewayConfigUsageRegistry,
    private readonly liveness: WorkerLiveness,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.reportQueueDepth('notices', () => this.notices.countDue(QUEUE_DEPTH_CAP));
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

  private async step(): Promise<number | null> {
    const due = await this.notices.claimDue(20);
    await Promise.all(due.map((notice) => this.send(notice)));
    return due.length > 0 ? 0 : this.notices.msUntilNextDue();
  }

  private async send(notice: ClaimedNotice): Promise<void> {
    const { shortestPauseSeconds } = await this.senders.activeSenders(
      notice.companyId,
      notice.gatewayConfigId,
    );
    const holder = this.liveness.workerId;
    const slot = await this.pacing.hold(
      notice.gatewayConfigId,
      holder,
      HOLD_SECONDS,
      shortestPauseSeconds ?? 0,
    );
    if (!slot.held) {
      await this.notices.waitForSlot(notice.id, slot.retryAt);
      return;
    }
    const sent = await this.sendHeld(notice);
    await this.pacing.release(notice.gatewayConfigId, holder, { sent: sent ? 1 : 0 });
  }

  /** Answers whether the message went out or may have (it counts for the instance's day). */
  private async sendHeld(notice: ClaimedNotice): Promise<boolean> {
    try {
      const { target } = await this.gatewayConfigs.resolveTarget(
        notice.companyId,
        notice.gatewayConfigId,
      );
      await this.gateway.send(target, notice.phoneNumber, { kind: 'text', text: notice.text });
      await this.notices.markSent(notice.id);
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryable =
        error instanceof GatewayError && (error.retryable || error.kind === 'disconnected');
      if (retryable && notice.attempts < MAX_ATTEMPTS) {
        await this.notices.retryLater(notice.id, new Date(Date.now() + RETRY_DELAY_MS), message);
      } else {
        this.logger.warn({ noticeId: notice.id, err: message }, 'Notice not sent');
        await this.notices.markFailed(notice.id, message);
      }
      return error instanceof GatewayError && error.kind === 'uncertain';
    }
  }
}
