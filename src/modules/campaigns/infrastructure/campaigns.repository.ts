import { CAMPAIGN_LIFECYCLE, statusesAllowing } from '../domain/campaign-status';
import { CAMPAIGN_CONTACT_LIFECYCLE } from '../domain/campaign-contact-status';
import type { ContactFailureKind } from '../domain/contact-failure-kind';
import { DISPATCH_CHANNEL } from '../application/ports/dispatch-channel';
import { DEFAULT_REACH_OUT } from '../../../common/messaging/reach-out';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Raw, Repository, SelectQueryBuilder } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { managerOf } from '../../../database/transactions';
import { ResourceNotFoundError, TenantRepository } from '../../../common/tenancy/owned-resource';
import { Campaign } from '../domain/campaign.entity';
import type { CampaignListFilter } from '../domain/campaign-list-filter';
import { isPoolSender } from '../domain/sender-pool';
import { execute, queryRows } from '../../../database/query-rows';
import { escapeLike } from '../../../common/persistence/like-pattern';
import { IllegalTransitionError } from '../../../common/state/transition-table';

/**
 * A campaign of its own or a pool's own row, never one of a pool's senders (domain/sender-pool.ts):
 * its pool id compared with its own id, whose property path Raw's own (Campaign.poolId) names.
 */
const NOT_A_SENDER = Raw(
  (poolId) => `(${poolId} IS NULL OR ${poolId} = ${poolId.replace(/poolId$/, 'id')})`,
);

export const CAMPAIGN_KIND = { code: 'CAMPAIGN', notFoundMessage: 'Campanha não encontrada' };

/** The retry's moves, as SQL literals from the transition tables. */
const RETRY = {
  contact: CAMPAIGN_CONTACT_LIFECYCLE.sql('retry'),
  campaign: CAMPAIGN_LIFECYCLE.sql('retry'),
  /** Contacts waiting for their send: what a FAILED campaign left unsent. */
  unsent: CAMPAIGN_CONTACT_LIFECYCLE.sql('take').from,
};

/** What a retry moved, and the campaign's counters after it. */
export interface RetriedFailures {
  /** FAILED contacts put back to PENDING. */
  retried: number;
  /** Contacts that were already PENDING (a FAILED campaign's unsent ones): they go out too. */
  unsent: number;
  failedContacts: number;
  progressStep: number;
}

@Injectable()
export class CampaignsRepository extends TenantRepository<Campaign> {
  constructor(@InjectRepository(Campaign) repository: Repository<Campaign>) {
    super(repository, CAMPAIGN_KIND);
  }

  /**
   * The campaigns the list shows (neither automation runs nor a pool's senders), newest first,
   * narrowed by `filter`, and how many match. docs/API-RULES.md, "Reports and the campaign
   * list", gives the filters; campaigns_listed_created_idx, campaigns_listed_name_trgm_idx and
   * campaigns_gateway_config_idx answer them.
   */
  async list(
    companyId: number,
    filter: CampaignListFilter,
  ): Promise<{ items: Campaign[]; total: number }> {
    const query = this.repository
      .createQueryBuilder('campaign')
      .where('campaign.company_id = :companyId', { companyId })
      .andWhere('campaign.automation_run_id IS NULL')
      .andWhere('(campaign.pool_id IS NULL OR campaign.pool_id = campaign.id)');
    this.narrowList(query, filter);
    const [items, total] = await query
      .orderBy('campaign.created_at', 'DESC')
      .addOrderBy('campaign.id', 'DESC')
      .offset(filter.page * filter.size)
      .limit(filter.size)
      .getManyAndCount();
    return { items, total };
  }

  /** The list's optional filters, each a bound parameter. */
  private narrowList(query: SelectQueryBuilder<Campaign>, filter: CampaignListFilter): void {
    if (filter.status) {
      query.andWhere('campaign.status = :status', { status: filter.status });
    }
    if (filter.search) {
      // The name and the search alike without accents and in lower case; LIKE's own wildcards
      // in the search are taken as written.
      query.andWhere(`folded_text(campaign.name) LIKE '%' || folded_text(:search) || '%'`, {
        search: escapeLike(filter.search),
      });
    }
    if (filter.createdFrom) {
      query.andWhere('campaign.created_at >= :createdFrom', { createdFrom: filter.createdFrom });
    }
    if (filter.createdBefore) {
      query.andWhere('campaign.created_at < :createdBefore', {
        createdBefore: filter.createdBefore,
      });
    }
    if (filter.gatewayConfigId !== undefined) {
      // A pool's numbers are its senders' rows, whose pool_id names it; a campaign on one
      // number is its own row.
      query.andWhere(
        `campaign.id IN (SELECT coalesce(s.pool_id, s.id) FROM campaigns s
                          WHERE s.company_id = :companyId AND s.gateway_config_id = :gatewayConfigId)`,
        { gatewayConfigId: filter.gatewayConfigId },
      );
    }
  }

  listActive(companyId: number): Promise<Campaign[]> {
    return this.repository.find({
      where: { companyId, status: 'ACTIVE', automationRunId: IsNull(), poolId: NOT_A_SENDER },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /**
   * Campaigns that carry automation runs belong to the automations API, and a pool's senders
   * are the pool's: here they do not exist.
   */
  override async findOwnedOrFail(companyId: number, id: number | string): Promise<Campaign> {
    const campaign = await super.findOwnedOrFail(companyId, id);
    if (campaign.automationRunId !== null || isPoolSender(campaign)) {
      throw new ResourceNotFoundError(CAMPAIGN_KIND);
    }
    return campaign;
  }

  /**
   * Non-test campaigns launched since `since` (created other than as drafts, or drafts
   * launched), deleted ones included (campaign_deletions keeps them: a deletion never gives a
   * launch back), and the oldest launch among them (for Retry-After).
   */
  async creationsSince(
    companyId: number,
    since: Date,
  ): Promise<{ count: number; oldest: Date | null }> {
    const rows: Array<{ count: number; oldest: Date | null }> = await this.repository.query(
      `SELECT count(*)::int AS count, min(launched_at) AS oldest
         FROM (SELECT launched_at FROM campaigns
                WHERE company_id = $1 AND launched_at > $2 AND NOT is_test
                  AND automation_run_id IS NULL AND (pool_id IS NULL OR pool_id = id)
               UNION ALL
               SELECT launched_at FROM campaign_deletions
                WHERE company_id = $1 AND launched_at > $2 AND counts_as_creation) AS launched`,
      [companyId, since],
    );
    return rows[0];
  }

  save(tx: Transaction, campaign: Campaign): Promise<Campaign> {
    return managerOf(tx).save(campaign);
  }

  /** New campaigns in one INSERT (a pool's senders). */
  async saveAll(tx: Transaction, campaigns: Campaign[]): Promise<void> {
    await managerOf(tx).save(campaigns);
  }

  /**
   * The campaign under its row lock (the engine takes the same lock), for a status change.
   * NO KEY UPDATE, as an UPDATE takes it: it still waits for every writer of the row, but not
   * for the foreign-key checks of a pool's senders, which share-lock their pool's row while
   * the senders are written (a person's pause would otherwise deadlock with a delivery).
   */
  /** The campaign under its row lock; deleted since it was read (DELETE), a 404. */
  async lockForUpdate(tx: Transaction, id: number): Promise<Campaign> {
    const campaign = await managerOf(tx).findOne(Campaign, {
      where: { id },
      lock: { mode: 'for_no_key_update' },
    });
    if (!campaign) {
      throw new ResourceNotFoundError(CAMPAIGN_KIND);
    }
    return campaign;
  }

  /** Writes the columns that pause, resume, cancel and retry change. */
  async saveTransition(tx: Transaction, campaign: Campaign): Promise<void> {
    await managerOf(tx).update(Campaign, campaign.id, {
      status: campaign.status,
      pausedAt: campaign.pausedAt,
      pauseReason: campaign.pauseReason,
      failureReason: campaign.failureReason,
      waitingReason: campaign.waitingReason,
      internalErrorStreak: campaign.internalErrorStreak,
      sendFailureStreak: campaign.sendFailureStreak,
      watchedSends: campaign.watchedSends,
      watchedRefusals: campaign.watchedRefusals,
      completedAt: campaign.completedAt,
      nextSendAt: campaign.nextSendAt,
      updatedAt: campaign.updatedAt,
    });
  }

  /**
   * A retry's contacts in one statement, the campaign row locked by the caller and its move
   * (Campaign.retry) not yet saved: its FAILED contacts of `kinds` never retried before back to
   * PENDING (attempts reset, failure cleared, retried_at set), failed_contacts and
   * progress_step lowered by what moved, and the engine's own columns (lease, disconnection)
   * cleared. The caller then saves the campaign's move with saveTransition.
   */
  async retryFailed(
    tx: Transaction,
    campaignId: number,
    kinds: readonly ContactFailureKind[],
  ): Promise<RetriedFailures> {
    // Under the row lock, before the entity's move is saved (the status still allows a retry).
    // SET reads the row as it was: failed_contacts there is the count before the move. The
    // unsent count's subquery sees the contacts as they were too, so it leaves out the retried.
    // Attempts start again at 0 (the engine allows 3 per contact); disconnected_since goes, or
    // a campaign failed by a long disconnection would fail again at its first closed answer.
    const rows = await queryRows<RetriedFailures>(
      tx,
      `WITH retried AS (
         UPDATE campaign_contacts
            SET status = ${RETRY.contact.to}, retried_at = now(), retry_count = 0, next_attempt_at = NULL,
                failure_kind = NULL, failure_reason = NULL, failed_at = NULL
          WHERE campaign_id = $1 AND status IN (${RETRY.contact.from}) AND retried_at IS NULL
            AND failure_kind = ANY($2::text[])
          RETURNING 1),
       moved AS (SELECT count(*)::int AS n FROM retried)
       UPDATE campaigns
          SET failed_contacts = failed_contacts - moved.n,
              progress_step = CASE WHEN total_contacts = 0 THEN 10
                                   ELSE (sent_contacts + failed_contacts - moved.n) * 10 / total_contacts END,
              disconnected_since = NULL, locked_by = NULL, locked_until = NULL
         FROM moved
        WHERE id = $1 AND status IN (${RETRY.campaign.from})
        RETURNING moved.n AS retried,
                  (SELECT count(*)::int FROM campaign_contacts
                    WHERE campaign_id = $1 AND status IN (${RETRY.unsent})) AS unsent,
                  failed_contacts AS "failedContacts", progress_step AS "progressStep"`,
      [campaignId, kinds],
    );
    if (!rows[0]) {
      // The caller checked the locked entity first, so its status allowed the retry.
      throw new IllegalTransitionError(
        CAMPAIGN_LIFECYCLE.name,
        'a status read under the lock',
        'retry',
      );
    }
    return rows[0];
  }

  /** Whether an ACTIVE, SCHEDULED or PAUSED campaign of the company sends through the configuration. */
  async usesGatewayConfig(companyId: number, gatewayConfigId: number): Promise<boolean> {
    const rows: unknown[] = await this.repository.query(
      `SELECT 1 FROM campaigns WHERE company_id = $1 AND gateway_config_id = $2
          AND status IN ('ACTIVE', 'SCHEDULED', 'PAUSED') LIMIT 1`,
      [companyId, gatewayConfigId],
    );
    return rows.length > 0;
  }

  /**
   * ACTIVE campaigns sending through each of the configurations, apart from automation runs, in
   * one query however many: a configuration nobody sends through has no row.
   */
  activeSendersOf(
    companyId: number,
    gatewayConfigIds: number[],
  ): Promise<
    Array<{
      gatewayConfigId: number;
      campaigns: number;
      automationRuns: number;
      shortestPauseSeconds: number | null;
    }>
  > {
    return queryRows(
      this.repository.manager,
      `SELECT gateway_config_id AS "gatewayConfigId",
              count(*) FILTER (WHERE automation_run_id IS NULL)::int AS campaigns,
              count(*) FILTER (WHERE automation_run_id IS NOT NULL)::int AS "automationRuns",
              min(min_interval) AS "shortestPauseSeconds"
         FROM campaigns
        WHERE company_id = $1 AND gateway_config_id = ANY($2::int[]) AND status = 'ACTIVE'
          AND pool_id IS DISTINCT FROM id
        GROUP BY gateway_config_id`,
      [companyId, gatewayConfigIds],
    );
  }

  /**
   * Inserts the contacts in one statement, leaving out numbers on the company's active block
   * list (one anti-join) when `applyBlockList`. Returns how many were inserted.
   */
  async insertContacts(
    tx: Transaction,
    campaign: { id: number; companyId: number },
    contacts: { phones: string[]; names: string[] },
    applyBlockList: boolean,
  ): Promise<number> {
    // The block-list condition appears only when it applies: a NOT EXISTS standing alone is an
    // anti-join, where one behind `NOT $flag OR` becomes a subplan run for every contact.
    const notBlocked = applyBlockList
      ? `WHERE NOT EXISTS (
            SELECT 1 FROM blocked_contacts b
             WHERE b.company_id = $2 AND b.phone_number = i.phone AND b.is_active)`
      : '';
    const rows: Array<{ inserted: number }> = await managerOf(tx).query(
      `WITH input AS (
         SELECT phone, name, ord FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS u(phone, name, ord)
       ), kept AS (
         SELECT i.* FROM input i ${notBlocked}
       ), inserted AS (
         INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, warm)
         SELECT $1, $2, phone, name, ${warmSql('phone', configOfCampaign('$1'), '$2')} FROM kept ORDER BY ord
         RETURNING 1
       )
       SELECT count(*)::int AS inserted FROM inserted`,
      [campaign.id, campaign.companyId, contacts.phones, contacts.names],
    );
    return rows[0].inserted;
  }

  async setContactCounts(
    tx: Transaction,
    campaignId: number,
    total: number,
    blockedRemoved: number,
  ): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns SET total_contacts = $2, blocked_contacts_removed = $3 WHERE id = $1`,
      [campaignId, total, blockedRemoved],
    );
  }

  /** Wakes the dispatch workers of every instance (LISTEN campaign_dispatch). */
  async announce(tx: Transaction): Promise<void> {
    await execute(tx, `SELECT pg_notify($1, '')`, [DISPATCH_CHANNEL]);
  }

  /** Deletes a campaign that never had a contact (an automation run that found nobody). */
  async discard(tx: Transaction, campaignId: number): Promise<void> {
    await execute(tx, `DELETE FROM campaigns WHERE id = $1`, [campaignId]);
  }

  /** The still sending (ACTIVE or PAUSED) campaigns of these automation runs, row-locked. */
  lockSendingForRuns(tx: Transaction, runIds: string[]): Promise<Campaign[]> {
    return (
      managerOf(tx)
        .getRepository(Campaign)
        .createQueryBuilder('campaign')
        .setLock('for_no_key_update')
        .where('campaign.automation_run_id = ANY(:runIds)', { runIds })
        .andWhere('campaign.status IN (:...statuses)', { statuses: statusesAllowing('cancel') })
        // A pool's row before its senders' (ids in creation order): the order every writer takes.
        .orderBy('campaign.id')
        .getMany()
    );
  }

  /**
   * An INSERT of the rows of the CTE named `source` (columns id, phone, name) as the campaign's
   * contacts, in `source`'s id order, `RETURNING 1` per row: for a caller's set-based selection.
   */
  contactsInsertSql(source: string, campaignIdParam: string, companyIdParam: string): string {
    return campaignContactsInsertSql(source, campaignIdParam, companyIdParam);
  }
}

/** See CampaignsRepository.contactsInsertSql. */
export function campaignContactsInsertSql(
  source: string,
  campaignIdParam: string,
  companyIdParam: string,
): string {
  return `INSERT INTO campaign_contacts (campaign_id, company_id, phone_number, name, warm)
      SELECT ${campaignIdParam}, ${companyIdParam}, phone, left(name, 100),
             ${warmSql('phone', configOfCampaign(campaignIdParam), companyIdParam)}
        FROM ${source} ORDER BY id
      RETURNING 1`;
}

/** The gateway configuration campaign `campaignIdParam` sends through, as an SQL expression. */
function configOfCampaign(campaignIdParam: string): string {
  return `(SELECT gateway_config_id FROM campaigns WHERE id = ${campaignIdParam})`;
}

/**
 * Whether the person at `phone` wrote to the instance `configId` (an SQL expression) within
 * the company's warm window (settings reachOut.warmDays): contact_conversations' key, one
 * probe per contact.
 */
export function warmSql(phone: string, configId: string, companyIdParam: string): string {
  return `EXISTS (
    SELECT 1 FROM contact_conversations v
     WHERE v.gateway_config_id = ${configId}
       AND v.phone_key = phone_match_key(${phone})
       AND v.last_inbound_at > now() - make_interval(days => coalesce(
             (SELECT (reach_out->>'warmDays')::int FROM companies WHERE id = ${companyIdParam}),
             ${DEFAULT_REACH_OUT.warmDays})))`;
}
