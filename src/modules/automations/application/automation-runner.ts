import { Injectable, Logger } from '@nestjs/common';
import { DateTime } from 'luxon';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { CampaignRuns } from '../../campaigns/application/campaign-runs.service';
import { InvalidInputError } from '../../../common/errors/domain-error';
import { Clock } from '../../../common/time/clock';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import type { CampaignMediaType, NewCampaign } from '../../campaigns/domain/campaign.entity';
import { detectMediaType } from '../../campaigns/domain/media-kind';
import {
  GatewayConfigsService,
  GatewayConfigSummary,
} from '../../gateway/application/gateway-configs.service';
import { NoticeQueue } from '../../notices/application/ports/notice.queue';
import { Automation, sendersOf } from '../domain/automation.entity';
import type { AutomationMessage } from '../domain/automation-rules';
import type { AutomationRunRow } from '../domain/automation-run';
import { AutomationDatabases } from './ports/automation-databases.port';
import { AutomationRunsRepository, RunTrigger } from '../infrastructure/automation-runs.repository';
import { RecipientSelection } from '../infrastructure/recipient-selection.repository';

export type { RunTrigger } from '../infrastructure/automation-runs.repository';

export class AutomationRunInProgressError extends InvalidInputError {
  constructor() {
    super('AUTOMATION.RUN_IN_PROGRESS', 'Uma execução desta automação já está em andamento');
  }
}

/**
 * Starts a run: selects the recipients in SQL and hands them to the campaign engine as an
 * internal campaign (CampaignRuns: same pacing, retries and at-most-once sending), all in one
 * transaction.
 * The partial unique index on RUNNING runs keeps one run per automation at a time, across
 * instances.
 */
@Injectable()
export class AutomationRunner {
  private readonly logger = new Logger(AutomationRunner.name);

  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly runs: AutomationRunsRepository,
    private readonly selection: RecipientSelection,
    private readonly campaignRuns: CampaignRuns,
    private readonly databases: AutomationDatabases,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly settings: CompanySettingsService,
    private readonly notices: NoticeQueue,
    private readonly clock: Clock,
  ) {}

  async start(
    automation: Automation,
    trigger: RunTrigger,
    scheduledFor: Date | null,
  ): Promise<AutomationRunRow> {
    const columns = await this.databases.columnsOf(
      automation.companyId,
      automation.databaseConfigId,
    );
    const senders = await this.resolveSenders(automation);
    const company = await this.settings.get(automation.companyId);
    const now = this.clock.now();
    return this.unitOfWork.run(async (tx) => {
      const runId = await this.runs.open(
        tx,
        { automationId: automation.id, companyId: automation.companyId, trigger, scheduledFor },
        now,
      );
      if (runId === null) {
        throw new AutomationRunInProgressError();
      }
      const campaign = await this.campaignRuns.open(
        tx,
        campaignFor(automation, senders[0]),
        runId,
        now,
        // On its pool when it has one (its first is the run campaign's own number).
        automation.gatewayConfigIds ? senders : null,
      );
      const counts = await this.selection.select(tx, {
        companyId: automation.companyId,
        databaseId: automation.databaseConfigId,
        automationId: automation.id,
        campaignId: campaign.id,
        filters: automation.filters,
        columns,
        today: DateTime.fromJSDate(now, {
          zone: automation.schedule.timezone,
        }).toISODate() as string,
        applyBlockList: company.blockedContactsEnabled,
        dedupStrategy: automation.dedupStrategy,
        dedupCooldownDays: automation.dedupCooldownDays,
        sendLimit: automation.sendLimitPerRun,
        contactsInsertSql: (source, campaignIdParam, companyIdParam) =>
          this.campaignRuns.contactsInsertSql(campaign, source, campaignIdParam, companyIdParam),
      });
      await this.runs.recordSelection(tx, runId, { ...counts, campaignId: campaign.id });
      if (counts.selected === 0) {
        await this.finishEmpty(tx, automation, campaign.id, runId);
      } else {
        await this.campaignRuns.launch(tx, campaign, counts.selected);
      }
      this.logger.log(
        { automationId: automation.id, runId, trigger, ...counts },
        'Automation run started',
      );
      return this.runs.find(tx, runId);
    });
  }

  /**
   * The configurations the run sends through, each resolved as the one number is (a number
   * deleted since makes the run fail to start): the pool's in order, or the one number.
   */
  private async resolveSenders(automation: Automation): Promise<GatewayConfigSummary[]> {
    const resolved = await Promise.all(
      sendersOf(automation).map((id) =>
        this.gatewayConfigs.resolveTarget(automation.companyId, id),
      ),
    );
    return resolved.map(({ config }) => config);
  }

  /** A scheduled time the service missed by more than the grace period: recorded, not sent. */
  recordMissed(tx: Transaction, automation: Automation, scheduledFor: Date): Promise<void> {
    return this.runs.recordClosed(
      tx,
      { automationId: automation.id, companyId: automation.companyId, scheduledFor },
      'miss',
      'Execução perdida: o serviço estava indisponível no horário agendado (mais de 6 horas atrás)',
    );
  }

  /** A run that could not start (its database or gateway is gone, say) is recorded as FAILED. */
  recordFailure(automation: Automation, scheduledFor: Date | null, reason: string): Promise<void> {
    return this.runs.recordClosed(
      null,
      { automationId: automation.id, companyId: automation.companyId, scheduledFor },
      'refuse',
      reason,
    );
  }

  /** Nobody to send to: the run ends at once, and its campaign is not kept. */
  private async finishEmpty(
    tx: Transaction,
    automation: Automation,
    campaignId: number,
    runId: string,
  ): Promise<void> {
    await this.campaignRuns.discard(tx, campaignId);
    await this.runs.end(tx, runId, 'complete', 'withoutCampaign');
    if (automation.notificationPhone) {
      await this.notices.enqueue(tx, {
        companyId: automation.companyId,
        gatewayConfigId: automation.gatewayConfigId,
        phoneNumber: automation.notificationPhone,
        text: `ℹ️ Automação "${automation.name}": execução concluída sem contatos para enviar.`,
        reason: 'automation_run',
        dedupKey: `automation-run:${runId}`,
      });
    }
  }
}

function campaignFor(automation: Automation, gateway: GatewayConfigSummary): NewCampaign {
  const message = automation.messageConfig;
  return {
    companyId: automation.companyId,
    name: `Automação: ${automation.name}`.slice(0, 100),
    description: null,
    isTest: false,
    isDraft: false,
    scheduledFor: null,
    ...contentOf(message),
    template: message.template ?? null,
    gateway,
    databaseConfigId: automation.databaseConfigId,
    minInterval: automation.intervalMinSeconds,
    maxInterval: automation.intervalMaxSeconds,
    notificationPhone: automation.notificationPhone,
    // A run follows the company's default window (read at send time) and has no long pauses.
    sendingWindow: null,
    longPause: null,
  };
}

function contentOf(
  message: AutomationMessage,
): Pick<
  NewCampaign,
  'type' | 'messageContent' | 'mediaUrl' | 'mediaType' | 'fileName' | 'caption' | 'pollData'
> {
  const base = {
    messageContent: message.message,
    fileName: message.fileName,
    caption: message.caption,
  };
  switch (message.type) {
    case 'TEXT':
      return { ...base, type: 'TEXT', mediaUrl: null, mediaType: null, pollData: null };
    case 'POLL':
      return { ...base, type: 'POLL', mediaUrl: null, mediaType: null, pollData: message.pollData };
    case 'AUDIO':
      return {
        ...base,
        type: 'MEDIA',
        mediaUrl: message.mediaUrl,
        mediaType: 'audio',
        caption: null,
        pollData: null,
      };
    case 'MEDIA': {
      const mediaType: CampaignMediaType =
        message.mediaType ??
        detectMediaType(message.mediaUrl as string, message.fileName) ??
        'document';
      return { ...base, type: 'MEDIA', mediaUrl: message.mediaUrl, mediaType, pollData: null };
    }
  }
}
