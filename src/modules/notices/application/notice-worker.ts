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
import { GatewayError, MessagingGateway } from '../../gateway/domain/messaging-gateway';
import { ClaimedNotice, NoticesRepository } from './ports/notices.repository';

const MAX_ATTEMPTS = 5;
const RETRY_DELAY_MS = 60_000;
export const NOTICE_CHANNEL = 'notices';

/** Sends queued notices (end of campaign, failures, disconnects) through the company's gateway. */
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
    try {
      const { target } = await this.gatewayConfigs.resolveTarget(
        notice.companyId,
        notice.gatewayConfigId,
      );
      await this.gateway.send(target, notice.phoneNumber, { kind: 'text', text: notice.text });
      await this.notices.markSent(notice.id);
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
    }
  }
}
