import type { CampaignStatus } from '../domain/campaign-status';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { managerOf } from '../../../database/transactions';
import { execute, queryRows } from '../../../database/query-rows';
import { Campaign } from '../domain/campaign.entity';
import { DEFINITION_PROPERTIES } from '../domain/campaign-draft';

/**
 * What a pool's senders copy of its definition (CampaignPools' senders are its copies on one
 * number each): the columns an edit changes, but the number each sends through.
 */
const COPIED_DEFINITION = [
  'name',
  'description',
  'is_test',
  'type',
  'message_content',
  'media_url',
  'media_type',
  'file_name',
  'caption',
  'poll_data',
  'template',
  'database_config_id',
  'min_interval',
  'max_interval',
  'notification_phone',
  'sending_window',
  'long_pause_every',
  'long_pause_min',
  'long_pause_max',
  'warm_first',
  'scheduled_for',
  'updated_at',
]
  .map((column) => `${column} = p.${column}`)
  .join(', ');

/**
 * What an edit and a launch write of a campaign not sent yet (docs/API-RULES.md, "Drafts: edit
 * and launch"): its definition, on the pool's senders too, and its contacts, replaced or
 * filtered again; the caller holds the campaign's row (and a pool's senders').
 */
@Injectable()
export class CampaignDraftsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A pool's numbers in their order, read on the primary: what an edit or a launch checks must
   * be what its write then finds under the lock.
   */
  async senderConfigIds(poolId: number): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(
      this.dataSource,
      `SELECT gateway_config_id AS id FROM campaigns WHERE pool_id = $1 AND id <> $1 ORDER BY id`,
      [poolId],
    );
    return rows.map((row) => row.id);
  }

  /** Writes what an edit changes: the definition (gateway snapshot, pool shape included). */
  async saveDefinition(tx: Transaction, campaign: Campaign): Promise<void> {
    const fields = campaign as unknown as Record<string, unknown>;
    const columns = Object.fromEntries(
      [...DEFINITION_PROPERTIES, 'poolId', 'launchedAt', 'updatedAt'].map((key) => [
        key,
        fields[key],
      ]),
    );
    await managerOf(tx).update(Campaign, campaign.id, columns);
  }

  /** Writes a draft's launch (Campaign.launch) and the gateway snapshot taken with it. */
  async saveLaunch(tx: Transaction, campaign: Campaign): Promise<void> {
    await managerOf(tx).update(Campaign, campaign.id, {
      status: campaign.status,
      launchedAt: campaign.launchedAt,
      startedAt: campaign.startedAt,
      nextSendAt: campaign.nextSendAt,
      updatedAt: campaign.updatedAt,
      gatewayName: campaign.gatewayName,
      gatewayUrl: campaign.gatewayUrl,
      gatewayInstance: campaign.gatewayInstance,
    });
  }

  /** The contacts of these campaigns (one, or a pool's senders), in the order they were given. */
  async contactsOf(
    tx: Transaction,
    campaignIds: readonly number[],
  ): Promise<{ phones: string[]; names: string[] }> {
    const rows = await queryRows<{ phones: string[]; names: string[] }>(
      tx,
      `SELECT coalesce(array_agg(phone_number ORDER BY id), '{}') AS phones,
              coalesce(array_agg(coalesce(name, '') ORDER BY id), '{}') AS names
         FROM campaign_contacts WHERE campaign_id = ANY($1::int[])`,
      [campaignIds],
    );
    return rows[0];
  }

  /** Removes every contact of these campaigns not sent yet (an edit replaces them). */
  async deleteContacts(tx: Transaction, campaignIds: readonly number[]): Promise<void> {
    await execute(tx, `DELETE FROM campaign_contacts WHERE campaign_id = ANY($1::int[])`, [
      campaignIds,
    ]);
  }

  /** A pool's senders under their row locks, in their order, with the number of each. */
  lockSenders(
    tx: Transaction,
    poolId: number,
  ): Promise<Array<{ id: number; gatewayConfigId: number; status: CampaignStatus }>> {
    return queryRows(
      tx,
      `SELECT id, gateway_config_id AS "gatewayConfigId", status FROM campaigns
        WHERE pool_id = $1 AND id <> $1 ORDER BY id FOR NO KEY UPDATE`,
      [poolId],
    );
  }

  /**
   * Removes the contacts of these campaigns (one, or a pool's senders) on the company's active
   * block list, as a creation leaves them out; answers how many.
   */
  async dropBlockedContacts(
    tx: Transaction,
    companyId: number,
    campaignIds: readonly number[],
  ): Promise<number> {
    const rows = await queryRows<{ dropped: number }>(
      tx,
      `WITH dropped AS (
         DELETE FROM campaign_contacts c
          WHERE c.campaign_id = ANY($2::int[])
            AND EXISTS (SELECT 1 FROM blocked_contacts b
                         WHERE b.company_id = $1 AND b.phone_number = c.phone_number AND b.is_active)
          RETURNING 1)
       SELECT count(*)::int AS dropped FROM dropped`,
      [companyId, campaignIds],
    );
    return rows[0].dropped;
  }

  /** An edit of the pool (its row saved, the caller holding it): its senders copy it. */
  async copyDefinition(tx: Transaction, poolId: number): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns s SET ${COPIED_DEFINITION}
         FROM campaigns p WHERE p.id = $1 AND s.pool_id = $1 AND s.id <> $1`,
      [poolId],
    );
  }

  /** The senders of a pool not sent yet, with their contacts (an edit gives it other numbers). */
  async deleteSenders(tx: Transaction, poolId: number): Promise<void> {
    await execute(tx, `DELETE FROM campaigns WHERE pool_id = $1 AND id <> $1`, [poolId]);
  }

  /** Each sender's gateway snapshot as its configuration is now (a draft's launch). */
  async refreshSnapshots(tx: Transaction, poolId: number): Promise<void> {
    await execute(
      tx,
      `UPDATE campaigns s SET gateway_name = g.name, gateway_url = g.url, gateway_instance = g.instance
         FROM gateway_configs g WHERE g.id = s.gateway_config_id AND s.pool_id = $1 AND s.id <> $1`,
      [poolId],
    );
  }
}
