import { Injectable } from '@nestjs/common';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
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
export class NoticeWorker extends BackgroundWorker {
  constructor(
    private readonly notices: NoticesRepository,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly gateway: MessagingGateway,
    private readonly pacing: InstancePacing,
    private readonly senders: GatewayConfigUsageRegistry,
    private readonly liveness: WorkerLiveness,
    context: WorkerContext,
  ) {
    super(context, {
      name: 'notices',
      idleMs: 5_000,
      wakeOn: NOTICE_CHANNEL,
      queue: { name: 'notices', countDue: (cap) => notices.countDue(cap) },
      // Its holds are this process's: taken under its liveness lock, ended when it goes.
      holdsLiveness: true,
    });
  }

  protected async step(): Promise<number | null> {
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
    const slot = await this.pacing.hold(notice.gatewayConfigId, holder, HOLD_SECONDS, {
      minSeconds: shortestPauseSeconds ?? 0,
      maxSeconds: shortestPauseSeconds ?? 0,
    });
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
