import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { execute, queryRows } from '../../../database/query-rows';
import { managerOf } from '../../../database/transactions';
import {
  AUTOMATION_RUN_LIFECYCLE,
  AUTOMATION_RUN_OPENINGS,
  AutomationRunAction,
  AutomationRunRow,
} from '../domain/automation-run';

export type RunTrigger = 'SCHEDULE' | 'MANUAL';

/** What a run's selection found, as its record keeps it. */
export interface RunSelection {
  matched: number;
  skippedByBlockList: number;
  skippedByDedup: number;
  skippedByLimit: number;
  campaignId: number;
}

/**
 * Runs as the API shows them; a running run's counts come live from its campaign, and so do a
 * finished one's while its campaign is kept (a receipt may turn a sent message into a refused
 * one after the run ended). A run on a pool counts its senders' sums: the pool's own row holds
 * none while they send, and receipts keep landing on the senders after it completed.
 */
export const RUN_SELECT = `
  SELECT r.id, r.automation_id AS "automationId", r.status, r.trigger, r.scheduled_for AS "scheduledFor",
         r.started_at AS "startedAt", r.finished_at AS "finishedAt", r.matched_records AS "matchedRecords",
         coalesce(senders.sent, c.sent_contacts, r.sent) AS sent,
         coalesce(senders.failed, c.failed_contacts, r.failed) AS failed,
         r.skipped_by_dedup AS "skippedByDedup", r.skipped_by_block_list AS "skippedByBlockList",
         r.skipped_by_limit AS "skippedByLimit", r.error,
         coalesce(senders.delivered, c.delivered_contacts, 0) AS delivered,
         coalesce(senders.read, c.read_contacts, 0) AS read,
         coalesce(senders.replied, c.replied_contacts, 0) AS replied
    FROM automation_runs r
    LEFT JOIN campaigns c ON c.id = r.campaign_id
    LEFT JOIN LATERAL (
      SELECT sum(sender.sent_contacts)::int AS sent, sum(sender.failed_contacts)::int AS failed,
             sum(sender.delivered_contacts)::int AS delivered, sum(sender.read_contacts)::int AS read,
             sum(sender.replied_contacts)::int AS replied
        FROM campaigns sender
       WHERE c.pool_id = c.id AND sender.pool_id = c.id AND sender.id <> c.id
    ) senders ON true`;

/**
 * The runs of automations and their sent-log. Every status it writes comes from the run's
 * lifecycle (domain/automation-run.ts).
 */
@Injectable()
export class AutomationRunsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Opens a RUNNING run and stamps the automation's last run; null when one is already
   * running (the partial unique index on RUNNING runs, across instances).
   */
  async open(
    tx: Transaction,
    run: {
      automationId: number;
      companyId: number;
      trigger: RunTrigger;
      scheduledFor: Date | null;
    },
    now: Date,
  ): Promise<string | null> {
    const rows = await queryRows<{ id: string }>(
      tx,
      `INSERT INTO automation_runs (automation_id, company_id, status, trigger, scheduled_for, started_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (automation_id) WHERE status = 'RUNNING' DO NOTHING
       RETURNING id`,
      [
        run.automationId,
        run.companyId,
        AUTOMATION_RUN_OPENINGS.start,
        run.trigger,
        run.scheduledFor,
        now,
      ],
    );
    if (rows.length === 0) {
      return null;
    }
    await execute(tx, `UPDATE automations SET last_run_at = $2 WHERE id = $1`, [
      run.automationId,
      now,
    ]);
    return rows[0].id;
  }

  /** Records a run that never sent: missed (SKIPPED) or unable to start (FAILED). */
  async recordClosed(
    tx: Transaction | null,
    run: { automationId: number; companyId: number; scheduledFor: Date | null },
    opening: 'miss' | 'refuse',
    error: string,
  ): Promise<void> {
    await execute(
      tx ?? this.dataSource,
      `INSERT INTO automation_runs (automation_id, company_id, status, trigger, scheduled_for, started_at, finished_at, error)
       VALUES ($1, $2, $3, 'SCHEDULE', $4, now(), now(), left($5, 1000))`,
      [run.automationId, run.companyId, AUTOMATION_RUN_OPENINGS[opening], run.scheduledFor, error],
    );
  }

  async recordSelection(tx: Transaction, runId: string, selection: RunSelection): Promise<void> {
    await execute(
      tx,
      `UPDATE automation_runs SET matched_records = $2, skipped_by_block_list = $3, skipped_by_dedup = $4,
              skipped_by_limit = $5, campaign_id = $6 WHERE id = $1`,
      [
        runId,
        selection.matched,
        selection.skippedByBlockList,
        selection.skippedByDedup,
        selection.skippedByLimit,
        selection.campaignId,
      ],
    );
  }

  /** Ends a RUNNING run; `withoutCampaign` when its campaign was discarded. */
  async end(
    tx: Transaction,
    runId: string,
    action: AutomationRunAction,
    outcome: { sent: number; failed: number; error: string | null } | 'withoutCampaign',
  ): Promise<void> {
    const move = [
      AUTOMATION_RUN_LIFECYCLE.target(action),
      AUTOMATION_RUN_LIFECYCLE.statusesAllowing(action),
    ];
    if (outcome === 'withoutCampaign') {
      await execute(
        tx,
        `UPDATE automation_runs SET status = $2, finished_at = now(), campaign_id = NULL
          WHERE id = $1 AND status = ANY($3)`,
        [runId, ...move],
      );
      return;
    }
    await execute(
      tx,
      `UPDATE automation_runs SET status = $2, finished_at = now(), sent = $4, failed = $5, error = $6
        WHERE id = $1 AND status = ANY($3)`,
      [runId, ...move, outcome.sent, outcome.failed, outcome.error],
    );
  }

  /** A message of the run went out: the sent-log row de-duplication reads. */
  async logSent(tx: Transaction, runId: string, phoneNumber: string): Promise<void> {
    await execute(
      tx,
      `INSERT INTO automation_sent_log (automation_id, run_id, phone_number, sent_at)
       SELECT automation_id, id, $2, now() FROM automation_runs WHERE id = $1`,
      [runId, phoneNumber],
    );
  }

  async find(tx: Transaction, runId: string): Promise<AutomationRunRow> {
    const rows: AutomationRunRow[] = await managerOf(tx).query(`${RUN_SELECT} WHERE r.id = $1`, [
      runId,
    ]);
    return rows[0];
  }
}
