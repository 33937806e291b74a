import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { CompanySession } from '../../../common/session/company-session';
import {
  InvalidInputError,
  RateLimitedError,
  ValidationFailedError,
} from '../../../common/errors/domain-error';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import {
  GatewayConfigsService,
  GatewayConfigSummary,
} from '../../gateway/application/gateway-configs.service';
import {
  GatewayError,
  GatewayTarget,
  MessagingGateway,
} from '../../gateway/domain/messaging-gateway';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import { retriedEvent, startedEvent } from '../domain/campaign-events';
import { Campaign } from '../domain/campaign.entity';
import {
  CampaignGatewayConfigRemovedError,
  CampaignNothingToRetryError,
  GatewayCheckFailedError,
  NoValidContactsError,
} from '../domain/campaign.errors';
import { RETRYABLE_FAILURE_KINDS } from '../domain/contact-failure-kind';
import type { CampaignStatus } from '../domain/campaign-status';
import { CampaignContactRow, CampaignsRepository } from './ports/campaigns.repository';
import { CampaignInput, checkCampaignInput, prepareContacts } from './campaign-input';
import { CampaignMediaCheck } from './campaign-media.check';
import { ContactVariablesProvider } from './contact-variables.provider';
import { DispatchWorker } from './dispatch-worker';

export interface CreateCampaignCommand extends CampaignInput {
  name: string;
  description?: string;
  isTest?: boolean;
  contacts: Array<{ phoneNumber: string; name?: string | null }>;
  databaseConfigId?: number;
}

const CREATION_WINDOW_MS = 60 * 60 * 1000;

@Injectable()
export class CampaignsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly campaigns: CampaignsRepository,
    private readonly gatewayConfigs: GatewayConfigsService,
    private readonly gateway: MessagingGateway,
    private readonly settings: CompanySettingsService,
    private readonly variables: ContactVariablesProvider,
    private readonly mediaCheck: CampaignMediaCheck,
    private readonly outbox: OutboxWriter,
    private readonly worker: DispatchWorker,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(session: CompanySession, command: CreateCampaignCommand): Promise<Campaign> {
    const now = this.clock.now();
    const { value: checked, errors } = checkCampaignInput(command, {
      now,
      timezone: this.config.appTimezone,
      defaultCountryCode: this.config.defaultCountryCode,
    });
    const mediaUrl =
      command.mediaUrl && checked.type === 'MEDIA' && !errors.some(([f]) => f === 'mediaUrl')
        ? await this.mediaCheck.check(command.mediaUrl, checked.mediaType, command.fileName, errors)
        : (command.mediaUrl ?? null);
    const contacts = prepareContacts(command.contacts, this.config.defaultCountryCode);
    if (contacts.phones.length === 0) {
      errors.push([
        'contacts',
        'nenhum contato válido: informe ao menos 1 número de telefone válido',
      ]);
    }
    if (errors.length > 0) {
      throw new ValidationFailedError(errors);
    }
    const company = await this.settings.get(session.companyId);
    if (checked.type === 'POLL' && !company.pollCampaignsEnabled) {
      throw new InvalidInputError(
        'CAMPAIGN.POLLS_DISABLED',
        'Campanhas de enquete estão desativadas para esta empresa',
      );
    }
    if (!command.isTest) {
      await this.assertCreationAllowed(
        session.companyId,
        company.campaignCreationsPerHour ?? this.config.campaignCreationsPerHour,
        now,
      );
    }
    if (command.databaseConfigId !== undefined) {
      await this.variables.assertUsable(session.companyId, command.databaseConfigId);
    }
    const resolved = await this.resolveGateway(session.companyId, command);
    const campaign = Campaign.create(
      {
        companyId: session.companyId,
        name: command.name.trim(),
        description: command.description ?? null,
        isTest: command.isTest ?? false,
        isDraft: command.isDraft ?? false,
        scheduledFor: checked.scheduledFor,
        type: checked.type,
        messageContent: command.message ?? null,
        mediaUrl,
        mediaType: checked.mediaType,
        fileName: command.fileName ?? null,
        caption: command.caption ?? null,
        pollData: command.pollData
          ? {
              name: command.pollData.name,
              options: command.pollData.options,
              selectableCount: command.pollData.selectableCount,
            }
          : null,
        gateway: resolved.config,
        databaseConfigId: command.databaseConfigId ?? null,
        minInterval: checked.minInterval,
        maxInterval: checked.maxInterval,
        notificationPhone: checked.notificationPhone,
        sendingWindow: checked.sendingWindow,
        longPause: checked.longPause,
      },
      now,
    );
    await this.dataSource.transaction((manager) =>
      this.persistNew(manager, campaign, contacts, company.blockedContactsEnabled, now),
    );
    if (campaign.status === 'ACTIVE') {
      this.worker.wake();
    }
    return campaign;
  }

  async list(
    session: CompanySession,
    filter: { status?: CampaignStatus; page: number; size: number },
  ): Promise<{ items: Campaign[]; total: number }> {
    return this.campaigns.list(session.companyId, filter);
  }

  async active(session: CompanySession): Promise<Campaign[]> {
    return this.campaigns.listActive(session.companyId);
  }

  async get(session: CompanySession, id: number): Promise<Campaign> {
    return this.campaigns.findOwnedOrFail(session.companyId, id);
  }

  /** The contract answers a missing campaign with 400 on this endpoint (and 403 for another company's). */
  async contacts(
    session: CompanySession,
    id: number,
    page: number,
    size: number,
  ): Promise<{ items: CampaignContactRow[]; total: number }> {
    try {
      await this.campaigns.findOwnedOrFail(session.companyId, id);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) {
        throw new InvalidInputError('CAMPAIGN.NOT_FOUND', 'Campanha não encontrada');
      }
      throw error;
    }
    return this.campaigns.contactsPage(session.companyId, id, page, size);
  }

  pause(session: CompanySession, id: number): Promise<Campaign> {
    return this.transition(session, id, (campaign, now) => campaign.pause(now));
  }

  async resume(session: CompanySession, id: number): Promise<Campaign> {
    const view = await this.transition(session, id, (campaign, now) => campaign.resume(now));
    this.worker.wake();
    return view;
  }

  cancel(session: CompanySession, id: number): Promise<Campaign> {
    return this.transition(session, id, (campaign, now) => campaign.cancel(now));
  }

  /**
   * Sends a finished campaign's retryable failures again, once per contact, with a FAILED
   * campaign's unsent contacts (docs/API-RULES.md §4). Refused (409, nothing changed) when
   * the campaign is not COMPLETED or FAILED, ended more than 7 days ago, or has nothing to send.
   */
  async retryFailed(
    session: CompanySession,
    id: number,
  ): Promise<{ campaign: Campaign; retried: number }> {
    const owned = await this.campaigns.findOwnedOrFail(session.companyId, id);
    // The state first, so that a refused retry never waits on the gateway; checked again below.
    owned.checkRetry(this.clock.now());
    await this.assertCanSendThrough(owned);
    const result = await this.dataSource.transaction(async (manager) => {
      const locked = await this.campaigns.lockForUpdate(manager, id);
      locked.retry(this.clock.now());
      const moved = await this.campaigns.retryFailed(manager, id, RETRYABLE_FAILURE_KINDS);
      if (moved.retried === 0 && moved.unsent === 0) {
        throw new CampaignNothingToRetryError(); // rolls the statement back
      }
      locked.failedContacts = moved.failedContacts;
      locked.progressStep = moved.progressStep;
      await this.campaigns.saveTransition(manager, locked);
      // Only company campaigns reach here (findOwnedOrFail hides automation runs).
      await this.outbox.append(manager, [
        retriedEvent(locked, locked, this.clock.now(), moved.retried),
      ]);
      await this.campaigns.announce(manager);
      return { campaign: locked, retried: moved.retried };
    });
    this.worker.wake();
    return result;
  }

  /** Ownership first (404/403), then the change under the row lock the engine also takes. */
  private async transition(
    session: CompanySession,
    id: number,
    change: (campaign: Campaign, now: Date) => void,
  ): Promise<Campaign> {
    await this.campaigns.findOwnedOrFail(session.companyId, id);
    const campaign = await this.dataSource.transaction(async (manager) => {
      const locked = await this.campaigns.lockForUpdate(manager, id);
      change(locked, this.clock.now());
      await this.campaigns.saveTransition(manager, locked);
      if (locked.status === 'ACTIVE') {
        await this.campaigns.announce(manager);
      }
      return locked;
    });
    return campaign;
  }

  private async persistNew(
    manager: EntityManager,
    campaign: Campaign,
    contacts: { phones: string[]; names: string[] },
    applyBlockList: boolean,
    now: Date,
  ): Promise<void> {
    await this.campaigns.save(manager, campaign);
    const inserted = await this.campaigns.insertContacts(
      manager,
      campaign,
      contacts,
      applyBlockList,
    );
    if (inserted === 0) {
      throw new NoValidContactsError('Todos os contatos válidos estão na lista de bloqueio');
    }
    campaign.totalContacts = inserted;
    campaign.blockedContactsRemoved = contacts.phones.length - inserted;
    await this.campaigns.setContactCounts(
      manager,
      campaign.id,
      inserted,
      campaign.blockedContactsRemoved,
    );
    if (campaign.status === 'ACTIVE') {
      await this.outbox.append(manager, [startedEvent(campaign, campaign, now)]);
      await this.campaigns.announce(manager);
    }
  }

  private async assertCreationAllowed(
    companyId: number,
    perHour: number,
    now: Date,
  ): Promise<void> {
    const { count, oldest } = await this.campaigns.creationsSince(
      companyId,
      new Date(now.getTime() - CREATION_WINDOW_MS),
    );
    if (count >= perHour) {
      const retryAfterMs = oldest
        ? oldest.getTime() + CREATION_WINDOW_MS - now.getTime()
        : CREATION_WINDOW_MS;
      throw new RateLimitedError(
        'CAMPAIGN.CREATION_LIMIT',
        `Limite de ${perHour} campanhas por hora atingido; tente novamente mais tarde`,
        Math.max(1, Math.ceil(retryAfterMs / 1000)),
      );
    }
  }

  /**
   * The configuration to send through, its instance checked unless this is a draft. Inline
   * credentials are kept as a saved configuration (key encrypted at rest), one per URL and
   * instance, so every campaign response can name its gatewayConfig and the engine reads the
   * key from one place; the newest key given wins, but only once the gateway accepted it: a
   * typo must not break the campaigns already sending with the saved key.
   */
  private async resolveGateway(
    companyId: number,
    command: CreateCampaignCommand,
  ): Promise<{ config: GatewayConfigSummary; target: GatewayTarget }> {
    if (command.gatewayConfigId !== undefined) {
      const resolved = await this.gatewayConfigs.resolveTarget(companyId, command.gatewayConfigId);
      if (!command.isDraft) {
        await this.assertInstanceConnected(resolved.target);
      }
      return resolved;
    }
    const input = {
      name: (command.gatewayInstance as string).trim(),
      url: (command.gatewayUrl as string).trim(),
      apiKey: (command.gatewayApiKey as string).trim(),
      instance: (command.gatewayInstance as string).trim(),
    };
    const existing = (await this.gatewayConfigs.list(companyId)).find(
      (config) => config.url === input.url && config.instance === input.instance,
    );
    const current = existing
      ? await this.gatewayConfigs.resolveTarget(companyId, existing.id).catch(() => null)
      : null;
    if (!command.isDraft) {
      await this.assertInstanceConnected({
        url: input.url,
        apiKey: input.apiKey,
        instance: input.instance,
      });
    } else if (existing && current?.target.apiKey !== input.apiKey) {
      await this.assertKeyAccepted({
        url: input.url,
        apiKey: input.apiKey,
        instance: input.instance,
      });
    }
    if (current?.target.apiKey === input.apiKey) {
      // The same key again (every campaign of an integration sends it) writes nothing: a
      // rewrite per campaign made concurrent creations queue on the configuration's row.
      return current;
    }
    const saved = existing
      ? await this.gatewayConfigs.update(companyId, existing.id, { apiKey: input.apiKey })
      : await this.gatewayConfigs.create(companyId, input);
    return this.gatewayConfigs.resolveTarget(companyId, saved.id);
  }

  /**
   * A retry goes through the campaign's configuration as it is now: it must still exist (a
   * finished campaign does not keep it from being deleted) and its instance must be connected,
   * as at creation, so that a retry does not fail again at once on a known cause.
   */
  private async assertCanSendThrough(campaign: Campaign): Promise<void> {
    let target: GatewayTarget;
    try {
      ({ target } = await this.gatewayConfigs.resolveTarget(
        campaign.companyId,
        campaign.gatewayConfigId,
      ));
    } catch (error) {
      if (error instanceof ResourceNotFoundError) {
        throw new CampaignGatewayConfigRemovedError();
      }
      throw error;
    }
    await this.assertInstanceConnected(target);
  }

  /** A draft's new key for a saved configuration: the gateway must accept it, connected or not. */
  private async assertKeyAccepted(target: GatewayTarget): Promise<void> {
    try {
      await this.gateway.connectionState(target);
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        throw error;
      }
      throw new GatewayCheckFailedError(gatewayCheckMessage(error));
    }
  }

  /** Creation checks the gateway: unknown instance, refused key or a disconnected instance is a 400. */
  private async assertInstanceConnected(target: GatewayTarget): Promise<void> {
    try {
      const state = await this.gateway.connectionState(target);
      if (state !== 'open') {
        throw new GatewayCheckFailedError(
          `A instância do gateway não está conectada (estado: ${state})`,
        );
      }
    } catch (error) {
      if (!(error instanceof GatewayError)) {
        throw error;
      }
      throw new GatewayCheckFailedError(gatewayCheckMessage(error));
    }
  }
}

function gatewayCheckMessage(error: GatewayError): string {
  switch (error.kind) {
    case 'bad_credentials':
      return 'Credenciais do gateway inválidas: a chave de API foi recusada';
    case 'unknown_instance':
      return 'Credenciais do gateway inválidas: a instância não existe';
    case 'disconnected':
      return 'A instância do gateway não está conectada';
    case 'target_refused':
      return 'O endereço do gateway não é permitido';
    case 'refused_number':
    case 'rejected':
    case 'transient':
    case 'uncertain':
    case 'media_unreachable':
      return `Não foi possível verificar o gateway: ${error.message}`.slice(0, 300);
  }
}
