import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryRows } from '../../../database/query-rows';
import type { CopiedContacts, CopyMode } from '../domain/campaign-copies';
import { campaignContactsInsertSql } from './campaigns.repository';
import { poolContactsInsertSql } from './pool-contacts.sql';
import { RECEIVED } from './contact-receipts.sql';

/** What the block list calls the numbers that opted out by answering (BlockListService.optOut). */
const OPTED_OUT_BY = 'OPT_OUT';

/**
 * Each mode's condition on a contact `c` (domain/campaign-copies.ts defines them): the only
 * SQL a mode brings, chosen from this table, never written from input; receipts read as the
 * contacts' filters read them (contact-receipts.sql.ts). A person who replied got the message
 * and saw it, receipt or not: no follow-up asks them whether they did.
 */
const MODE_CONDITIONS: Record<CopyMode, string> = {
  ALL: 'true',
  FAILED: `c.status = 'FAILED'`,
  NOT_DELIVERED: `${RECEIVED.notDelivered} AND NOT ${RECEIVED.replied}`,
  NOT_READ: `c.status = 'SENT' AND NOT ${RECEIVED.read} AND NOT ${RECEIVED.replied}`,
  NOT_REPLIED: `c.status = 'SENT' AND NOT ${RECEIVED.replied}`,
};

/** A number a pool sends through, as its sender's row keeps it. */
export interface SenderNumber {
  id: number;
  name: string;
  url: string;
  instance: string;
}

/** The copy to fill: its id and company, whether it is a pool, and the rows it copies from. */
export interface ContactsCopy {
  copyId: number;
  companyId: number;
  /** The original's rows that hold contacts: its own, or a pool's senders. */
  sourceIds: number[];
  mode: CopyMode;
  pool: boolean;
  /** The company's block list applies to numbers blocked by hand or import (opt-outs always do). */
  applyBlockList: boolean;
}

/** The SQL side of a campaign's copy (CampaignCopiesService.duplicate). */
@Injectable()
export class CampaignCopiesRepository {
  /**
   * Takes the original's row in KEY SHARE until the copy commits: a deletion (which needs the
   * row's exclusive lock) waits for the copy, so a copy never reads contacts half purged.
   * False when the original is gone already.
   */
  async holdOriginal(tx: Transaction, campaignId: number): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      tx,
      `SELECT id FROM campaigns WHERE id = $1 FOR KEY SHARE`,
      [campaignId],
    );
    return rows.length > 0;
  }

  /** A pool's senders, in their order: the rows holding its contacts and the numbers they send through. */
  async sendersOf(
    tx: Transaction,
    poolId: number,
  ): Promise<Array<{ id: number; config: SenderNumber }>> {
    const rows = await queryRows<SenderNumber & { configId: number }>(
      tx,
      `SELECT id, gateway_config_id AS "configId", gateway_name AS name, gateway_url AS url,
              gateway_instance AS instance
         FROM campaigns WHERE pool_id = $1 AND id <> $1 ORDER BY id`,
      [poolId],
    );
    return rows.map(({ id, configId, name, url, instance }) => ({
      id,
      config: { id: configId, name, url, instance },
    }));
  }

  /**
   * The original's contacts that match the mode, copied to the new campaign in one statement
   * (in the original's order; a pool's given to its senders by the pools' one rule), leaving
   * out the numbers now on the block list. Writes no counters: the caller does.
   */
  async copyContacts(tx: Transaction, copy: ContactsCopy): Promise<CopiedContacts> {
    const insert = copy.pool
      ? poolContactsInsertSql('kept', '$1', '$2')
      : campaignContactsInsertSql('kept', '$1', '$2');
    const rows = await queryRows<CopiedContacts>(
      tx,
      `WITH chosen AS (
         SELECT c.id, c.phone_number AS phone, c.name, b.blocked_by
           FROM campaign_contacts c
           LEFT JOIN blocked_contacts b
                  ON b.company_id = $2 AND b.phone_number = c.phone_number AND b.is_active
          WHERE c.campaign_id = ANY($3::int[]) AND (${MODE_CONDITIONS[copy.mode]})),
       kept AS (
         SELECT id, phone, name FROM chosen
          WHERE blocked_by IS NULL OR (NOT $4::boolean AND blocked_by <> $5)),
       inserted AS (${insert})
       SELECT (SELECT count(*) FROM inserted)::int AS copied,
              count(*) FILTER (WHERE blocked_by = $5)::int AS "optedOut",
              count(*) FILTER (WHERE $4::boolean AND blocked_by <> $5)::int AS blocked
         FROM chosen`,
      [copy.copyId, copy.companyId, copy.sourceIds, copy.applyBlockList, OPTED_OUT_BY],
    );
    return rows[0];
  }
}
