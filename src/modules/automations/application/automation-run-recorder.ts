import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CampaignLifecycle } from '../../campaigns/application/campaign-lifecycle';
import type {
  CampaignCounters,
  ContactToSend,
  DispatchCampaign,
} from '../../campaigns/infrastructure/dispatch.repository';

/**
 * Keeps a run's records as its campaign sends, in the engine's transactions: the sent-log
 * row (which de-duplication reads) with each message, the run's outcome when it ends.
 */
@Injectable()
export class AutomationRunRecorder implements OnModuleInit {
  constructor(private readonly lifecycle: CampaignLifecycle) {}

  onModuleInit(): void {
    this.lifecycle.register({
      followsContactsOf: (campaign) => campaign.automationRunId !== null,
      contactSent: (manager, campaign, contact) => this.logSent(manager, campaign, contact),
      campaignEnded: (manager, campaign, counters, reason) =>
        this.finishRun(manager, campaign, counters, reason),
    });
  }

  private async logSent(
    manager: EntityManager,
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): Promise<void> {
    if (campaign.automationRunId === null) {
      return;
    }
    await manager.query(
      `INSERT INTO automation_sent_log (automation_id, run_id, phone_number, sent_at)
       SELECT automation_id, id, $2, now() FROM automation_runs WHERE id = $1`,
      [campaign.automationRunId, contact.phoneNumber],
    );
  }

  private async finishRun(
    manager: EntityManager,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
    reason: string | null,
  ): Promise<void> {
    if (campaign.automationRunId === null) {
      return;
    }
    await manager.query(
      `UPDATE automation_runs SET status = $2, finished_at = now(), sent = $3, failed = $4, error = $5
        WHERE id = $1 AND status = 'RUNNING'`,
      [
        campaign.automationRunId,
        reason ? 'FAILED' : 'COMPLETED',
        counters.sentContacts,
        counters.failedContacts,
        reason,
      ],
    );
  }
}
