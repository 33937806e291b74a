import { OwnedResources } from '../../../../common/tenancy/owned-resource';
import type { CampaignContactStatus } from '../../domain/campaign-contact-status';
import type { CampaignStatus } from '../../domain/campaign-status';
import type { Campaign } from '../../domain/campaign.entity';
import type { ContactFailureKind } from '../../domain/contact-failure-kind';
import type { EntityManager } from 'typeorm';

/** What a retry moved, and the campaign's counters after it. */
export interface RetriedFailures {
  /** FAILED contacts put back to PENDING. */
  retried: number;
  /** Contacts that were already PENDING (a FAILED campaign's unsent ones): they go out too. */
  unsent: number;
  failedContacts: number;
  progressStep: number;
}

export interface CampaignContactRow {
  id: string;
  phoneNumber: string;
  name: string;
  status: CampaignContactStatus;
  sentAt: Date | null;
  failedAt: Date | null;
  failureReason: string | null;
  retryCount: number;
  deliveredAt: Date | null;
  readAt: Date | null;
  playedAt: Date | null;
  deliveryError: string | null;
  sentText: string | null;
}

export abstract class CampaignsRepository extends OwnedResources<Campaign> {
  abstract list(
    companyId: number,
    filter: { status?: CampaignStatus; page: number; size: number },
  ): Promise<{ items: Campaign[]; total: number }>;
  abstract listActive(companyId: number): Promise<Campaign[]>;
  /** Campaigns that carry automation runs belong to the automations API: here they do not exist. */
  abstract override findOwnedOrFail(companyId: number, id: number | string): Promise<Campaign>;
  /** Non-test campaigns created since `since`, and the oldest creation among them (for Retry-After). */
  abstract creationsSince(
    companyId: number,
    since: Date,
  ): Promise<{ count: number; oldest: Date | null }>;
  abstract save(manager: EntityManager, campaign: Campaign): Promise<Campaign>;
  /** The campaign under its row lock (the engine takes the same lock), for a status change. */
  abstract lockForUpdate(manager: EntityManager, id: number): Promise<Campaign>;
  /** Writes the columns that pause, resume, cancel and retry change. */
  abstract saveTransition(manager: EntityManager, campaign: Campaign): Promise<void>;
  /**
   * A retry's contacts in one statement, the campaign row locked by the caller and its move
   * (Campaign.retry) not yet saved: its FAILED contacts of `kinds` never retried before back to
   * PENDING (attempts reset, failure cleared, retried_at set), failed_contacts and
   * progress_step lowered by what moved, and the engine's own columns (lease, disconnection)
   * cleared. The caller then saves the campaign's move with saveTransition.
   */
  abstract retryFailed(
    manager: EntityManager,
    campaignId: number,
    kinds: readonly ContactFailureKind[],
  ): Promise<RetriedFailures>;
  /** Whether an ACTIVE, SCHEDULED or PAUSED campaign of the company sends through the configuration. */
  abstract usesGatewayConfig(companyId: number, gatewayConfigId: number): Promise<boolean>;
  /** ACTIVE campaigns sending through the configuration, apart from automation runs. */
  abstract activeSendersOf(
    companyId: number,
    gatewayConfigId: number,
  ): Promise<{ campaigns: number; automationRuns: number; shortestPauseSeconds: number | null }>;
  /**
   * Inserts the contacts in one statement, leaving out numbers on the company's active block
   * list (one anti-join) when `applyBlockList`. Returns how many were inserted.
   */
  abstract insertContacts(
    manager: EntityManager,
    campaign: { id: number; companyId: number },
    contacts: { phones: string[]; names: string[] },
    applyBlockList: boolean,
  ): Promise<number>;
  abstract setContactCounts(
    manager: EntityManager,
    campaignId: number,
    total: number,
    blockedRemoved: number,
  ): Promise<void>;
  abstract contactsPage(
    companyId: number,
    campaignId: number,
    page: number,
    size: number,
  ): Promise<{ items: CampaignContactRow[]; total: number }>;
  /** Wakes the dispatch workers of every instance (LISTEN campaign_dispatch). */
  abstract announce(manager: EntityManager): Promise<void>;
  /** Deletes a campaign that never had a contact (an automation run that found nobody). */
  abstract discard(manager: EntityManager, campaignId: number): Promise<void>;
  /** The still sending (ACTIVE or PAUSED) campaigns of these automation runs, row-locked. */
  abstract lockSendingForRuns(manager: EntityManager, runIds: string[]): Promise<Campaign[]>;
  /**
   * An INSERT of the rows of the CTE named `source` (columns id, phone, name) as the campaign's
   * contacts, in `source`'s id order, `RETURNING 1` per row: for a caller's set-based selection.
   */
  abstract contactsInsertSql(
    source: string,
    campaignIdParam: string,
    companyIdParam: string,
  ): string;
}
