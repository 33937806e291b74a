import { Injectable } from '@nestjs/common';
import { Metrics } from '../../../common/metrics/metrics';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { AppConfig } from '../../../config/app-config.service';
import { MessagingGateway, StoredSentMessage } from '../../gateway/domain/messaging-gateway';
import { candidateJids } from '../domain/whatsapp-jid';
import {
  ReconciliationRepository,
  UncertainContact,
} from '../infrastructure/reconciliation.repository';
import { CampaignGatewayTargets } from './campaign-gateway-targets';

export const UNKNOWN_OUTCOME_REASON =
  'resultado desconhecido: o gateway não confirmou o envio e a mensagem não foi encontrada nele; não reenviada';
const CLAIM_BATCH = 20;
/** The gateway's and the database's clocks may differ by a little; WhatsApp's is to the second. */
const CLOCK_SLACK_MS = 5_000;

/**
 * Settles sends whose outcome the gateway did not prove (UNCERTAIN): asks the gateway's
 * message store (POST /chat/findMessages) for a message from the instance to the contact since
 * the attempt began. Found: SENT, with its key. Not found at the last look
 * (RECONCILE_DELAYS_MS): FAILED with an unknown outcome, counted apart. Never a second send.
 */
@Injectable()
export class SendReconciler extends BackgroundWorker {
  constructor(
    private readonly repository: ReconciliationRepository,
    private readonly gateway: MessagingGateway,
    private readonly targets: CampaignGatewayTargets,
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
    context: WorkerContext,
  ) {
    super(context, { name: 'send-reconciliation', idleMs: 1_000 });
  }

  async step(): Promise<number | null> {
    const due = await this.repository.claimDue(CLAIM_BATCH);
    await Promise.all(due.map((contact) => this.reconcile(contact)));
    return due.length > 0 ? 0 : this.repository.msUntilNextDue();
  }

  private async reconcile(contact: UncertainContact): Promise<void> {
    const found = await this.lookUp(contact);
    if (found) {
      if (await this.repository.resolveAsSent(contact, found.messageId, found.sentAt)) {
        this.metrics.countMessages('sent', 'reconciled');
      }
      this.logger.log({ contactId: contact.id }, 'Uncertain send found in the gateway: SENT');
      return;
    }
    const delays = this.config.reconcileDelaysMs;
    const nextLook = contact.attempts + 1;
    if (nextLook < delays.length) {
      await this.repository.lookAgain(contact, delays[nextLook]);
      return;
    }
    if (await this.repository.writeOff(contact, UNKNOWN_OUTCOME_REASON)) {
      this.metrics.countMessages('failed', 'unknown_outcome');
    }
    this.logger.warn({ contactId: contact.id }, 'Uncertain send never found: FAILED as unknown');
  }

  /** The message, or null when the store has none (or cannot be asked now). */
  private async lookUp(contact: UncertainContact): Promise<StoredSentMessage | null> {
    const window = {
      from: new Date(contact.sendingStartedAt.getTime() - CLOCK_SLACK_MS),
      to: new Date(contact.now.getTime() + CLOCK_SLACK_MS),
    };
    try {
      const target = await this.targets.targetFor(contact.companyId, contact.gatewayConfigId);
      for (const jid of candidateJids(contact.phoneNumber)) {
        const messages = await this.gateway.findSentMessages(target, jid, window);
        const taken = await this.repository.recordedMessageIds(messages.map((m) => m.messageId));
        const ours = messages.find((message) => !taken.has(message.messageId));
        if (ours) {
          return ours;
        }
      }
    } catch (error) {
      this.logger.warn(
        { contactId: contact.id, err: error instanceof Error ? error.message : String(error) },
        'Could not ask the gateway about an uncertain send; looking again later',
      );
    }
    return null;
  }
}
