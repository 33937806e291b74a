import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryRows } from '../../../database/query-rows';
import type { CampaignStatus } from '../domain/campaign-status';
import { UNFINISHED_CONTACT_STATUSES } from '../domain/campaign-contact-status';
import { AWAITS_THE_FEED } from './system-contacts-feed.sql';

/** The NOTIFY channel that wakes the contacts' batches of every instance. */
export const CAMPAIGN_DELETIONS_CHANNEL = 'campaign_deletions';

/** Contacts still in flight or being confirmed: their outcome counts on the number. */
const UNSETTLED = UNFINISHED_CONTACT_STATUSES.filter((status) => status !== 'PENDING');

/**
 * A campaign's deletion (migration CampaignDeletions): its rows go at once, with a
 * `campaign_deletions` row each, and its contacts in batches afterwards.
 */
@Injectable()
export class CampaignDeletionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * The company's campaign's status under its exclusive row lock (null: gone), for its
   * deletion. Every statement of a deletion names the company: it is the one that cannot be
   * undone.
   */
  async lockForDeletion(
    tx: Transaction,
    companyId: number,
    campaignId: number,
  ): Promise<CampaignStatus | null> {
    const rows = await queryRows<{ status: CampaignStatus }>(
      tx,
      `SELECT status FROM campaigns WHERE id = $1 AND company_id = $2 FOR UPDATE`,
      [campaignId, companyId],
    );
    return rows[0]?.status ?? null;
  }

  /**
   * Contacts of the campaign (a pool's senders' included) still in flight or being confirmed:
   * one count per status, each written as its partial index has it (SENDING by campaign,
   * UNCERTAIN the reconciler's few), so a campaign of 100,000 contacts is not read through.
   */
  async unsettledSends(tx: Transaction, campaignId: number): Promise<number> {
    const counts = UNSETTLED.map(
      (status) => `(SELECT count(*) FROM campaign_contacts c
                     WHERE c.status = '${status}' AND c.campaign_id = ANY(rows.ids))`,
    );
    const rows = await queryRows<{ n: number }>(
      tx,
      `SELECT (${counts.join(' + ')})::int AS n
         FROM (SELECT array_agg(id) AS ids FROM campaigns WHERE id = $1 OR pool_id = $1) rows`,
      [campaignId],
    );
    return rows[0].n;
  }

  /**
   * Deletes the campaign's row and a pool's sender rows, each handed to the batches first (so
   * the trigger leaves their contacts to them), and wakes the batches of every instance.
   */
  async delete(tx: Transaction, companyId: number, campaignId: number): Promise<void> {
    await execute(
      tx,
      `INSERT INTO campaign_deletions
              (campaign_id, company_id, pool_id, status, created_at, started_at, launched_at,
               counts_as_creation)
       SELECT id, company_id, pool_id, status, created_at, started_at, launched_at,
              NOT is_test AND automation_run_id IS NULL AND (pool_id IS NULL OR pool_id = id)
         FROM campaigns WHERE (id = $1 OR pool_id = $1) AND company_id = $2`,
      [campaignId, companyId],
    );
    await execute(tx, `DELETE FROM campaigns WHERE (id = $1 OR pool_id = $1) AND company_id = $2`, [
      campaignId,
      companyId,
    ]);
    await execute(tx, `SELECT pg_notify($1, '')`, [CAMPAIGN_DELETIONS_CHANNEL]);
  }

  /**
   * One batch: up to `limit` contacts of deleted campaigns, in one short transaction of their
   * own. Answers how many went.
   */
  async purgeBatch(limit: number): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      this.dataSource,
      `WITH batch AS (
         SELECT c.id FROM campaign_deletions d
           JOIN campaign_contacts c ON c.campaign_id = d.campaign_id
          WHERE d.purged_at IS NULL AND NOT (${AWAITS_THE_FEED})
          LIMIT $1 FOR UPDATE OF c SKIP LOCKED),
       gone AS (DELETE FROM campaign_contacts c USING batch WHERE c.id = batch.id RETURNING 1)
       SELECT count(*)::int AS n FROM gone`,
      [limit],
    );
    return rows[0].n;
  }

  /** Deletions whose contacts are all gone are done; answers how many are still under way. */
  async closePurged(): Promise<number> {
    const rows = await queryRows<{ left: number }>(
      this.dataSource,
      `WITH done AS (
         UPDATE campaign_deletions d SET purged_at = now()
          WHERE d.purged_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM campaign_contacts c WHERE c.campaign_id = d.campaign_id)
          RETURNING 1)
       SELECT (SELECT count(*) FROM campaign_deletions WHERE purged_at IS NULL)::int
              - (SELECT count(*) FROM done)::int AS left`,
    );
    return rows[0].left;
  }
}
