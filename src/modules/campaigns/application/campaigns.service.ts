import { Injectable } from '@nestjs/common';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import { CompanySession } from '../../../common/session/company-session';
import {
  InvalidInputError,
  RateLimitedError,
  ValidationFailedError,
} from '../../../common/errors/domain-error';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import { retriedEvent, startedEvent } from '../domain/campaign-events';
import { Campaign, NewCampaign } from '../domain/campaign.entity';
import type { GatewayConfigSummary } from '../../gateway/application/gateway-configs.service';
import { CampaignNothingToRetryError, NoValidContactsError } from '../domain/campaign.errors';
import { RETRYABLE_FAILURE_KINDS } from '../domain/contact-failure-kind';
import type { CampaignType } from '../domain/campaign-status';
import type { CampaignListFilter } from '../domain/campaign-list-filter';
import type { Company } from '../../auth/domain/company.entity';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { CampaignGatewayCheck } from './campaign-gateway-check';
import {
  CampaignInput,
  CheckedCampaignInput,
  checkCampaignInput,
  FieldErrors,
  NO_VALID_CONTACT,
  prepareContacts,
  storedIntervals,
  storedTemplateOf,
} from './campaign-input';
import { CampaignMediaCheck } from './campaign-media.check';
import { CampaignTemplateCheck } from './campaign-template.check';
import { CampaignPools } from './campaign-pools';
import { isPool } from '../domain/sender-pool';
import type { CampaignAction } from '../domain/campaign-status';
import { ContactVariablesProvider } from './contact-variables.provider';
import { DispatchWorker } from './dispatch-worker';
import { pollDefinitionOf } from '../../../common/messaging/poll';

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
    private readonly unitOfWork: UnitOfWork,
    private readonly campaigns: CampaignsRepository,
    private readonly gatewayCheck: CampaignGatewayCheck,
    private readonly settings: CompanySettingsService,
    private readonly variables: ContactVariablesProvider,
    private readonly mediaCheck: CampaignMediaCheck,
    private readonly outbox: OutboxWriter,
    private readonly worker: DispatchWorker,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly pools: CampaignPools,
    private readonly templateCheck: CampaignTemplateCheck,
  ) {}

  async create(session: CompanySession, command: CreateCampaignCommand): Promise<Campaign> {
    const now = this.clock.now();
    const { checked, mediaUrl, errors } = await this.checkInput(command, now, true);
    const contacts = prepareContacts(command.contacts, this.config.defaultCountryCode);
    if (contacts.phones.length === 0) {
      errors.push(['contacts', NO_VALID_CONTACT]);
    }
    if (errors.length > 0) {
      throw new ValidationFailedError(errors);
    }
    const company = await this.assertAllowed(session.companyId, {
      type: checked.type,
      counted: !command.isTest && !command.isDraft,
      databaseConfigId: command.databaseConfigId ?? null,
      now,
    });
    const senders = await this.sendersFor(session.companyId, command);
    const campaign = Campaign.create(
      newCampaignOf(session.companyId, command, checked, mediaUrl, senders[0]),
      now,
    );
    await this.unitOfWork.run((tx) =>
      this.persistNew(tx, campaign, command.gatewayConfigIds ? senders : null, contacts, {
        applyBlockList: company.blockedContactsEnabled,
        now,
      }),
    );
    if (campaign.status === 'ACTIVE') {
      this.worker.wake();
    }
    return this.pools.withSenders(campaign);
  }

  /**
   * Creation's checks of the input (checkCampaignInput), and of its media when `checkMedia`
   * (a media campaign's URL or data URI): the values to store and the field errors found.
   */
  async checkInput(
    input: CampaignInput,
    now: Date,
    checkMedia: boolean,
  ): Promise<{ checked: CheckedCampaignInput; mediaUrl: string | null; errors: FieldErrors }> {
    const { value: checked, errors } = checkCampaignInput(input, {
      now,
      timezone: this.config.appTimezone,
      defaultCountryCode: this.config.defaultCountryCode,
    });
    const mediaUrl =
      checkMedia &&
      input.mediaUrl &&
      checked.type === 'MEDIA' &&
      !errors.some(([f]) => f === 'mediaUrl')
        ? await this.mediaCheck.check(input.mediaUrl, checked.mediaType, input.fileName, errors)
        : (input.mediaUrl ?? null);
    return { checked, mediaUrl, errors };
  }

  /**
   * Creation's rules of the company: polls enabled for a POLL, the hourly limit when the
   * campaign is `counted` (launched and not a test: docs/API-RULES.md, "Drafts: edit and
   * launch"), its variables' database usable. Answers the company's settings.
   */
  async assertAllowed(
    companyId: number,
    rules: { type: CampaignType; counted: boolean; databaseConfigId: number | null; now: Date },
  ): Promise<Company> {
    const company = await this.settings.get(companyId);
    if (rules.type === 'POLL' && !company.pollCampaignsEnabled) {
      throw new InvalidInputError(
        'CAMPAIGN.POLLS_DISABLED',
        'Campanhas de enquete estão desativadas para esta empresa',
      );
    }
    if (rules.counted) {
      await this.assertCreationAllowed(
        companyId,
        company.campaignCreationsPerHour ?? this.config.campaignCreationsPerHour,
        rules.now,
      );
    }
    if (rules.databaseConfigId !== null) {
      await this.variables.assertUsable(companyId, rules.databaseConfigId);
    }
    return company;
  }

  /**
   * The configurations it sends through: a pool's, in order, or the one of a single sender;
   * what it sends checked against them (CampaignTemplateCheck).
   */
  async sendersFor(companyId: number, input: CampaignInput): Promise<GatewayConfigSummary[]> {
    const senders = input.gatewayConfigIds
      ? (
          await this.gatewayCheck.resolvePool(
            companyId,
            input.gatewayConfigIds,
            input.isDraft ?? false,
          )
        ).map((sender) => sender.config)
      : [(await this.gatewayCheck.resolve(companyId, input)).config];
    await this.assertContentFits(companyId, senders, input);
    return senders;
  }

  /** What `input` sends fits the numbers `senders` (a draft's template is read at launch). */
  assertContentFits(
    companyId: number,
    senders: ReadonlyArray<{ id: number }>,
    input: CampaignInput,
  ): Promise<void> {
    return this.templateCheck.assertFits(
      companyId,
      senders.map((sender) => sender.id),
      input,
      !input.isDraft,
    );
  }

  async list(
    session: CompanySession,
    filter: CampaignListFilter,
  ): Promise<{ items: Campaign[]; total: number }> {
    const page = await this.campaigns.list(session.companyId, filter);
    await this.pools.withSenders(page.items);
    return page;
  }

  async active(session: CompanySession): Promise<Campaign[]> {
    return this.pools.withSenders(await this.campaigns.listActive(session.companyId));
  }

  async get(session: CompanySession, id: number): Promise<Campaign> {
    return this.pools.withSenders(await this.campaigns.findOwnedOrFail(session.companyId, id));
  }

  pause(session: CompanySession, id: number): Promise<Campaign> {
    return this.transition(session, id, 'pause', (campaign, now) => campaign.pause(now));
  }

  async resume(session: CompanySession, id: number): Promise<Campaign> {
    const view = await this.transition(session, id, 'resume', (campaign, now) =>
      campaign.resume(now),
    );
    this.worker.wake();
    return view;
  }

  cancel(session: CompanySession, id: number): Promise<Campaign> {
    return this.transition(session, id, 'cancel', (campaign, now) => campaign.cancel(now));
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
    await this.gatewayCheck.assertCanSendThrough(owned);
    const result = await this.unitOfWork.run(async (tx) => {
      const locked = await this.campaigns.lockForUpdate(tx, id);
      locked.retry(this.clock.now());
      const moved = isPool(locked)
        ? await this.pools.retryFailed(tx, locked, RETRYABLE_FAILURE_KINDS)
        : await this.campaigns.retryFailed(tx, id, RETRYABLE_FAILURE_KINDS);
      if (moved.retried === 0 && moved.unsent === 0) {
        throw new CampaignNothingToRetryError(); // rolls the statement back
      }
      locked.failedContacts = moved.failedContacts;
      locked.progressStep = moved.progressStep;
      await this.campaigns.saveTransition(tx, locked);
      // Only company campaigns reach here (findOwnedOrFail hides automation runs).
      await this.outbox.append(tx, [retriedEvent(locked, locked, this.clock.now(), moved.retried)]);
      await this.campaigns.announce(tx);
      return { campaign: locked, retried: moved.retried };
    });
    this.worker.wake();
    await this.pools.withSenders(result.campaign);
    return result;
  }

  /** Ownership first (404/403), then the change under the row lock the engine also takes. */
  private async transition(
    session: CompanySession,
    id: number,
    action: CampaignAction,
    change: (campaign: Campaign, now: Date) => void,
  ): Promise<Campaign> {
    await this.campaigns.findOwnedOrFail(session.companyId, id);
    const campaign = await this.unitOfWork.run(async (tx) => {
      const locked = await this.campaigns.lockForUpdate(tx, id);
      change(locked, this.clock.now());
      await this.campaigns.saveTransition(tx, locked);
      await this.pools.follow(tx, locked, action);
      if (locked.status === 'ACTIVE') {
        await this.campaigns.announce(tx);
      }
      return locked;
    });
    return this.pools.withSenders(campaign);
  }

  /** The campaign and its contacts; `pool`: the senders of a pool, null for one number. */
  private async persistNew(
    tx: Transaction,
    campaign: Campaign,
    pool: GatewayConfigSummary[] | null,
    contacts: { phones: string[]; names: string[] },
    { applyBlockList, now }: { applyBlockList: boolean; now: Date },
  ): Promise<void> {
    if (pool) {
      await this.pools.persistNew(tx, campaign, pool, contacts, applyBlockList);
    } else {
      await this.persistContacts(tx, campaign, contacts, applyBlockList);
    }
    if (campaign.status === 'ACTIVE') {
      await this.outbox.append(tx, [startedEvent(campaign, campaign, now)]);
      await this.campaigns.announce(tx);
    }
  }

  private async persistContacts(
    tx: Transaction,
    campaign: Campaign,
    contacts: { phones: string[]; names: string[] },
    applyBlockList: boolean,
  ): Promise<void> {
    await this.campaigns.save(tx, campaign);
    const inserted = await this.campaigns.insertContacts(tx, campaign, contacts, applyBlockList);
    if (inserted === 0) {
      throw new NoValidContactsError('Todos os contatos válidos estão na lista de bloqueio');
    }
    campaign.totalContacts = inserted;
    campaign.blockedContactsRemoved = contacts.phones.length - inserted;
    await this.campaigns.setContactCounts(
      tx,
      campaign.id,
      inserted,
      campaign.blockedContactsRemoved,
    );
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
}

/** The campaign a creation asks for, from its checked input. */
export function newCampaignOf(
  companyId: number,
  command: CreateCampaignCommand,
  checked: CheckedCampaignInput,
  mediaUrl: string | null,
  gateway: GatewayConfigSummary,
): NewCampaign {
  return {
    companyId,
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
    pollData: pollDefinitionOf(command.pollData),
    template: storedTemplateOf(command.template),
    gateway,
    databaseConfigId: command.databaseConfigId ?? null,
    ...storedIntervals(command, checked, gateway.provider),
    notificationPhone: checked.notificationPhone,
    sendingWindow: checked.sendingWindow,
    longPause: checked.longPause,
    warmFirst: command.warmFirst ?? false,
  };
}
