import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { Transaction, UnitOfWork } from '../../../common/persistence/transaction';
import type { CompanySession } from '../../../common/session/company-session';
import { ResourceNotFoundError } from '../../../common/tenancy/owned-resource';
import { Clock } from '../../../common/time/clock';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import { AppConfig } from '../../../config/app-config.service';
import { OutboxWriter } from '../../outbox/application/ports/outbox.writer';
import type { GatewayConfigSummary } from '../../gateway/application/gateway-configs.service';
import { launchActionOf } from '../domain/campaign-draft';
import { startedEvent } from '../domain/campaign-events';
import type { Campaign } from '../domain/campaign.entity';
import { CampaignChangedMeanwhileError } from '../domain/campaign.errors';
import { isPool } from '../domain/sender-pool';
import { CampaignDraftsRepository } from '../infrastructure/campaign-drafts.repository';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';
import { SenderPoolsRepository } from '../infrastructure/sender-pools.repository';
import {
  editedInputOf,
  GATEWAY_FIELDS,
  MEDIA_FIELDS,
  storedInputOf,
  UpdateCampaignCommand,
} from './campaign-draft-input';
import { CampaignDraftStore, CampaignEdit } from './campaign-draft-store';
import { NO_VALID_CONTACT, prepareContacts } from './campaign-input';
import { CampaignPools } from './campaign-pools';
import { CampaignsService, CreateCampaignCommand, newCampaignOf } from './campaigns.service';
import { DispatchWorker } from './dispatch-worker';

/**
 * Edits and launches of campaigns not sent yet (docs/API-RULES.md, "Drafts: edit and launch"),
 * with creation's checks (CampaignsService): a draft keeps skipping the ones drafts skip, a
 * scheduled campaign and a launch get them all. Every check runs before anything is written,
 * so a refusal changes nothing; the writes run under the campaign's row lock, its status
 * checked again there (the engine starts scheduled campaigns under the same lock).
 */
@Injectable()
export class CampaignDraftsService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly campaigns: CampaignsRepository,
    private readonly drafts: CampaignDraftsRepository,
    private readonly senderPools: SenderPoolsRepository,
    private readonly creation: CampaignsService,
    private readonly store: CampaignDraftStore,
    private readonly pools: CampaignPools,
    private readonly outbox: OutboxWriter,
    private readonly worker: DispatchWorker,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** PUT: the fields given replace the campaign's; a DRAFT or SCHEDULED one only (409). */
  async update(
    session: CompanySession,
    id: number,
    patch: UpdateCampaignCommand,
  ): Promise<Campaign> {
    const owned = await this.campaigns.findOwnedOrFail(session.companyId, id);
    owned.checkEdit();
    const now = this.clock.now();
    const edit = await this.checkedEdit(owned, patch, now);
    const campaign = await this.unitOfWork.run(async (tx) => {
      const locked = await this.lockUnchanged(tx, owned);
      await this.store.saveEdit(tx, locked, edit, now);
      if (locked.status === 'SCHEDULED') {
        // A time moved earlier must not wait for the loop's sleep until the old one.
        await this.campaigns.announce(tx);
      }
      return locked;
    });
    return this.pools.withSenders(campaign);
  }

  /** The edit as creation would check it (a draft's skipping what drafts skip), or a 400. */
  private async checkedEdit(
    owned: Campaign,
    patch: UpdateCampaignCommand,
    now: Date,
  ): Promise<CampaignEdit> {
    const { input, errors: editErrors } = editedInputOf(
      storedInputOf(owned, await this.poolConfigIdsOf(owned)),
      patch,
    );
    const checkMedia = MEDIA_FIELDS.some((field) => patch[field] !== undefined);
    const { checked, mediaUrl, errors } = await this.creation.checkInput(input, now, checkMedia);
    errors.unshift(...editErrors);
    if (patch.scheduledFor === null && owned.status === 'SCHEDULED') {
      errors.push(['scheduledFor', 'uma campanha agendada precisa de uma data; informe outra']);
    }
    const contacts = patch.contacts
      ? prepareContacts(patch.contacts, this.config.defaultCountryCode)
      : null;
    if (contacts && contacts.phones.length === 0) {
      errors.push(['contacts', NO_VALID_CONTACT]);
    }
    if (errors.length > 0) {
      throw new ValidationFailedError(errors);
    }
    const company = await this.creation.assertAllowed(owned.companyId, {
      type: checked.type,
      // A scheduled test campaign made a real one counts as launched now.
      counted: owned.status === 'SCHEDULED' && owned.isTest && input.isTest === false,
      databaseConfigId: patch.databaseConfigId ? patch.databaseConfigId : null,
      now,
    });
    const gatewayGiven = GATEWAY_FIELDS.some((field) => patch[field] !== undefined);
    const senders = gatewayGiven
      ? await this.sendersFor(owned.companyId, input)
      : await this.keptSenders(owned, patch, input);
    const definition = newCampaignOf(
      owned.companyId,
      input,
      checked,
      mediaUrl,
      senders?.[0] ?? owned.gatewayConfig,
    );
    definition.scheduledFor =
      typeof patch.scheduledFor === 'string'
        ? checked.scheduledFor
        : patch.scheduledFor === null
          ? null
          : owned.scheduledFor;
    return {
      definition,
      senders: senders && { configs: senders, pool: input.gatewayConfigIds !== undefined },
      contacts,
      applyBlockList: company.blockedContactsEnabled,
    };
  }

  /**
   * POST launch: creation's checks that a draft skipped, then the draft goes out as a campaign
   * created that way would: ACTIVE (or SCHEDULED with its time), its started event, the engine
   * woken, counted against the hourly limit now. A DRAFT only (409).
   */
  async launch(session: CompanySession, id: number): Promise<Campaign> {
    const owned = await this.campaigns.findOwnedOrFail(session.companyId, id);
    owned.checkLaunch();
    const now = this.clock.now();
    const input: CreateCampaignCommand = {
      ...storedInputOf(owned, await this.poolConfigIdsOf(owned)),
      isDraft: false,
      scheduledFor: formatLocalDateTime(owned.scheduledFor, this.config.appTimezone) ?? undefined,
    };
    const { checked, errors } = await this.creation.checkInput(input, now, true);
    if (errors.length > 0) {
      throw new ValidationFailedError(errors);
    }
    const company = await this.creation.assertAllowed(owned.companyId, {
      type: checked.type,
      counted: !owned.isTest,
      databaseConfigId: owned.databaseConfigId,
      now,
    });
    const [first] = await this.sendersFor(owned.companyId, input);
    const campaign = await this.unitOfWork.run(async (tx) => {
      const locked = await this.lockUnchanged(tx, owned);
      const pool = isPool(locked);
      const holders = pool ? (await this.drafts.lockSenders(tx, id)).map((s) => s.id) : [id];
      locked.launch(now);
      // The snapshot a creation now would take (the configuration may have changed since).
      Object.assign(locked, {
        gatewayName: first.name,
        gatewayUrl: first.url,
        gatewayInstance: first.instance,
      });
      await this.drafts.saveLaunch(tx, locked);
      if (company.blockedContactsEnabled) {
        await this.store.dropBlocked(tx, locked, holders);
      }
      if (pool) {
        await this.senderPools.moveSenders(tx, id, launchActionOf(locked));
        await this.drafts.refreshSnapshots(tx, id);
      }
      if (locked.status === 'ACTIVE') {
        await this.outbox.append(tx, [startedEvent(locked, locked, now)]);
      }
      await this.campaigns.announce(tx);
      return locked;
    });
    if (campaign.status === 'ACTIVE') {
      this.worker.wake();
    }
    return this.pools.withSenders(campaign);
  }

  /**
   * The numbers `input` names, checked as creation checks them (a draft's instance is not); a
   * saved configuration that no longer exists is a 400 naming the field, not the campaign's 404.
   */
  private async sendersFor(
    companyId: number,
    input: CreateCampaignCommand,
  ): Promise<GatewayConfigSummary[]> {
    try {
      return await this.creation.sendersFor(companyId, input);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) {
        throw new ValidationFailedError([
          ['gatewayConfigId', 'configuração de gateway não encontrada'],
        ]);
      }
      throw error;
    }
  }

  /**
   * An edit that keeps the numbers: null, what it sends checked against them when the edit
   * changes it (a template, a poll).
   */
  private async keptSenders(
    owned: Campaign,
    patch: UpdateCampaignCommand,
    input: CreateCampaignCommand,
  ): Promise<null> {
    if (patch.template !== undefined || patch.pollData !== undefined) {
      const configIds = (await this.poolConfigIdsOf(owned)) ?? [owned.gatewayConfigId];
      await this.creation.assertContentFits(
        owned.companyId,
        configIds.map((id) => ({ id })),
        input,
      );
    }
    return null;
  }

  /**
   * The campaign under its row lock, as it was when its edit or launch was checked: changed
   * since (another edit, its start), it is refused rather than written from a stale reading.
   */
  private async lockUnchanged(tx: Transaction, read: Campaign): Promise<Campaign> {
    const locked = await this.campaigns.lockForUpdate(tx, read.id);
    if (locked.updatedAt.getTime() !== read.updatedAt.getTime()) {
      throw new CampaignChangedMeanwhileError();
    }
    return locked;
  }

  /** A pool's numbers in their order; null for a campaign on one number. */
  private async poolConfigIdsOf(campaign: Campaign): Promise<number[] | null> {
    return isPool(campaign) ? this.drafts.senderConfigIds(campaign.id) : null;
  }
}
