import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { CampaignLifecycle } from '../../campaigns/application/campaign-lifecycle';
import type {
  CampaignCounters,
  ContactToSend,
  DispatchCampaign,
} from '../../campaigns/domain/dispatch-records';
import { runEndingOf } from '../domain/automation-run';
import { AutomationRunsRepository } from '../infrastructure/automation-runs.repository';

/**
 * Keeps a run's records as its campaign sends, in the engine's transactions: the sent-log
 * row (which de-duplication reads) with each message, the run's outcome when it ends.
 */
@Injectable()
export class AutomationRunRecorder implements OnModuleInit {
  constructor(
    private readonly lifecycle: CampaignLifecycle,
    private readonly runs: AutomationRunsRepository,
  ) {}

  onModuleInit(): void {
    this.lifecycle.register({
      followsContactsOf: (campaign) => campaign.automationRunId !== null,
      contactSent: (tx, campaign, contact) => this.logSent(tx, campaign, contact),
      campaignEnded: (tx, campaign, counters, reason) =>
        this.finishRun(tx, campaign, counters, reason),
    });
  }

  private async logSent(
    tx: Transaction,
    campaign: DispatchCampaign,
    contact: ContactToSend,
  ): Promise<void> {
    if (campaign.automationRunId !== null) {
      await this.runs.logSent(tx, campaign.automationRunId, contact.phoneNumber);
    }
  }

  private async finishRun(
    tx: Transaction,
    campaign: DispatchCampaign,
    counters: CampaignCounters,
    reason: string | null,
  ): Promise<void> {
    if (campaign.automationRunId !== null) {
      await this.runs.end(tx, campaign.automationRunId, runEndingOf(reason), {
        sent: counters.sentContacts,
        failed: counters.failedContacts,
        error: reason,
      });
    }
  }
}
