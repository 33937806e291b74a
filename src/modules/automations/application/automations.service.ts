import { CampaignMediaCheck } from '../../campaigns/application/campaign-media.check';
import { GatewayMediaPreparer } from '../../campaigns/application/gateway-media.preparer';
import { detectMediaType } from '../../campaigns/domain/media-kind';
import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { CompanySession } from '../../../common/session/company-session';
import { InvalidInputError, ValidationFailedError } from '../../../common/errors/domain-error';
import { normalizePhone } from '../../../common/phone/phone-number';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import { messagesForContact } from '../../campaigns/domain/campaign-message';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { GatewayError, MessagingGateway } from '../../gateway/domain/messaging-gateway';
import { Automation, AutomationChanges, AutomationSettings } from '../domain/automation.entity';
import { CampaignRuns } from '../../campaigns/application/campaign-runs.service';
import { CampaignTemplateCheck } from '../../campaigns/application/campaign-template.check';
import { CampaignGatewayCheck } from '../../campaigns/application/campaign-gateway-check';
import { RecipientSelection } from '../infrastructure/recipient-selection.repository';
import type { AutomationRunRow } from '../domain/automation-run';
import { AutomationsRepository } from '../infrastructure/automations.repository';
import { AutomationDatabases } from './ports/automation-databases.port';
import { automationProblems, FieldErrors, normalizeNotificationPhone } from './automation-input';
import { AutomationRunner } from './automation-runner';

/**
 * resolvePool's `isDraft`, which skips the instances' connection check: an automation's runs
 * check them, for a pool as for its one number.
 */
const OWNERSHIP_ONLY = true;

export interface TestSendResult {
  success: boolean;
  phoneNumber: string;
  renderedMessage: string;
  error?: string;
}

@Injectable()
export class AutomationsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly automations: AutomationsRepository,
    private readonly selection: RecipientSelection,
    private readonly campaignRuns: CampaignRuns,
    private readonly databases: AutomationDatabases,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly gatewayCheck: CampaignGatewayCheck,
    private readonly templateCheck: CampaignTemplateCheck,
    private readonly gateway: MessagingGateway,
    private readonly settings: CompanySettingsService,
    private readonly runner: AutomationRunner,
    private readonly mediaCheck: CampaignMediaCheck,
    private readonly media: GatewayMediaPreparer,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(session: CompanySession, settings: AutomationSettings): Promise<Automation> {
    const company = await this.settings.get(session.companyId);
    const limit = company.automationLimit ?? this.config.defaultAutomationLimit;
    if ((await this.automations.count(session.companyId)) >= limit) {
      throw new InvalidInputError(
        'AUTOMATION.LIMIT',
        `Limite de ${limit} automações atingido para esta empresa`,
      );
    }
    await this.assertOwnsGateways(session.companyId, settings);
    const checked = await this.checked(session.companyId, settings);
    return this.automations.save(Automation.create(session.companyId, checked, this.clock.now()));
  }

  list(session: CompanySession): Promise<Automation[]> {
    return this.automations.list(session.companyId);
  }

  get(session: CompanySession, id: number): Promise<Automation> {
    return this.automations.findOwnedOrFail(session.companyId, id);
  }

  async update(
    session: CompanySession,
    id: number,
    changes: AutomationChanges,
  ): Promise<Automation> {
    const automation = await this.automations.findOwnedOrFail(session.companyId, id);
    await this.assertOwnsGateways(session.companyId, changes);
    const merged: AutomationSettings = { ...automation, ...definedOnly(changes) };
    const checked = await this.checked(
      session.companyId,
      merged,
      changes.messageConfig !== undefined,
    );
    automation.change(
      { ...definedOnly(changes), notificationPhone: checked.notificationPhone },
      this.clock.now(),
    );
    const saved = await this.automations.save(automation);
    await this.automations.announceChanged();
    return saved;
  }

  /** Runs and sent-log go with it; a run in progress stops sending (its campaign is cancelled). */
  async delete(session: CompanySession, id: number): Promise<void> {
    await this.automations.findOwnedOrFail(session.companyId, id);
    const now = this.clock.now();
    // A campaign still sending for one of its runs (one at most) is cancelled first.
    await this.unitOfWork.run(async (tx) => {
      const runIds = await this.automations.runIdsOf(tx, id);
      await this.campaignRuns.cancelForRuns(tx, runIds, now);
      await this.automations.delete(tx, session.companyId, id);
    });
  }

  async runs(session: CompanySession, id: number): Promise<AutomationRunRow[]> {
    await this.automations.findOwnedOrFail(session.companyId, id);
    return this.automations.runs(id, 100);
  }

  async runNow(session: CompanySession, id: number): Promise<AutomationRunRow> {
    const automation = await this.automations.findOwnedOrFail(session.companyId, id);
    return this.runner.start(automation, 'MANUAL', null);
  }

  /** One message rendered with the first matching record; no run, no sent-log. */
  async testSend(session: CompanySession, id: number, phoneInput: string): Promise<TestSendResult> {
    const automation = await this.automations.findOwnedOrFail(session.companyId, id);
    const phone = normalizePhone(phoneInput, this.config.defaultCountryCode);
    if (!phone) {
      throw new ValidationFailedError([['phoneNumber', 'número de telefone inválido']]);
    }
    const columns = await this.databases.columnsOf(session.companyId, automation.databaseConfigId);
    const values =
      (await this.selection.firstMatchingValues({
        companyId: session.companyId,
        databaseId: automation.databaseConfigId,
        filters: automation.filters,
        columns,
        today: DateTime.fromJSDate(this.clock.now(), {
          zone: automation.schedule.timezone,
        }).toISODate() as string,
      })) ?? {};
    const nameColumn = columns.find((c) => c.isNameColumn)?.columnName;
    const contact = {
      name: nameColumn && typeof values[nameColumn] === 'string' ? values[nameColumn] : '',
    };
    // The same rendering as a run's, variants drawn for this test: renderedMessage is what went out.
    const messages = messagesForContact(
      campaignContent(automation),
      contact,
      stringValues(values),
      `automation:${automation.id}:test:${phone}`,
    );
    const followUpText = messages.find((m) => m.kind === 'text');
    const renderedMessage =
      followUpText?.kind === 'text' ? followUpText.text : describeMessage(messages[0]);
    try {
      const { target } = await this.gatewayConfigs.resolveTarget(
        session.companyId,
        automation.gatewayConfigId,
      );
      for (const message of messages) {
        await this.gateway.send(target, phone, await this.media.prepare(message));
      }
      return { success: true, phoneNumber: phone, renderedMessage };
    } catch (error) {
      const text = error instanceof GatewayError ? error.message : 'falha ao enviar';
      return { success: false, phoneNumber: phone, renderedMessage, error: text };
    }
  }

  /**
   * Its numbers are the company's: the one number (403 for another company's, 404 for none), or
   * every number of its pool, as a campaign's pool is checked (403, or 400 naming an unknown
   * one's place). Their instances are checked by each run, as the one number's always were.
   */
  private async assertOwnsGateways(
    companyId: number,
    gateways: Partial<Pick<AutomationSettings, 'gatewayConfigId' | 'gatewayConfigIds'>>,
  ): Promise<void> {
    if (gateways.gatewayConfigIds) {
      await this.gatewayCheck.resolvePool(companyId, gateways.gatewayConfigIds, OWNERSHIP_ONLY);
    } else if (gateways.gatewayConfigId !== undefined) {
      await this.gatewayConfigs.resolveTarget(companyId, gateways.gatewayConfigId);
    }
  }

  /** A template only on the official API, as its account has it; no poll there (400 naming the field). */
  private async assertContentFits(companyId: number, settings: AutomationSettings): Promise<void> {
    const message = settings.messageConfig;
    await this.templateCheck.assertFits(
      companyId,
      settings.gatewayConfigIds ?? [settings.gatewayConfigId],
      { template: message.template, pollData: message.type === 'POLL' ? message.pollData : null },
      true,
      'messageConfig.',
    );
  }

  private async checked(
    companyId: number,
    settings: AutomationSettings,
    textsChanged = true,
  ): Promise<AutomationSettings> {
    const columns = await this.databases.columnsOf(companyId, settings.databaseConfigId);
    const errors: FieldErrors = automationProblems(settings, columns, textsChanged);
    const notification = normalizeNotificationPhone(
      settings.notificationPhone,
      this.config.defaultCountryCode,
    );
    if (notification.error) {
      errors.push(notification.error);
    }
    const messageConfig = await this.checkedMedia(settings.messageConfig, errors);
    if (errors.length > 0) {
      throw new ValidationFailedError(errors);
    }
    await this.assertContentFits(companyId, settings);
    if (
      settings.messageConfig.type === 'POLL' &&
      !(await this.settings.get(companyId)).pollCampaignsEnabled
    ) {
      throw new InvalidInputError(
        'AUTOMATION.POLLS_DISABLED',
        'Enquetes estão desativadas para esta empresa',
      );
    }
    return { ...settings, messageConfig, notificationPhone: notification.phone };
  }

  /** The campaign rules for media (the gateway's URL rules, normalized data URIs, file names). */
  private async checkedMedia(
    message: AutomationSettings['messageConfig'],
    errors: FieldErrors,
  ): Promise<AutomationSettings['messageConfig']> {
    if (!message.mediaUrl || errors.some(([field]) => field.startsWith('messageConfig.media'))) {
      return message;
    }
    const mediaType =
      message.type === 'AUDIO'
        ? 'audio'
        : (message.mediaType ?? detectMediaType(message.mediaUrl, message.fileName));
    const mediaUrl = await this.mediaCheck.check(
      message.mediaUrl,
      mediaType,
      message.fileName ?? undefined,
      errors,
      'messageConfig.',
    );
    return { ...message, mediaUrl };
  }
}

function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(changes).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

function stringValues(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

function campaignContent(automation: Automation): Parameters<typeof messagesForContact>[0] {
  const m = automation.messageConfig;
  const isAudio = m.type === 'AUDIO';
  return {
    type: m.type === 'POLL' ? 'POLL' : m.type === 'TEXT' ? 'TEXT' : 'MEDIA',
    messageContent: m.message,
    mediaUrl: m.mediaUrl,
    mediaType: isAudio ? 'audio' : m.mediaType,
    fileName: m.fileName,
    caption: isAudio ? null : m.caption,
    pollData: m.pollData,
    template: m.template ?? null,
  };
}

function describeMessage(
  message: ReturnType<typeof messagesForContact>[number] | undefined,
): string {
  if (!message) {
    return '';
  }
  switch (message.kind) {
    case 'text':
      return message.text;
    case 'media':
      return message.caption ?? '';
    case 'audio':
      return message.audio;
    case 'poll':
    case 'template':
      return message.name;
  }
}
