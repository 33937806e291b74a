import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { queryRows } from '../../../database/query-rows';
import { TenantRepository } from '../../../common/tenancy/owned-resource';
import { Campaign } from '../../campaigns/domain/campaign.entity';
import { Automation } from '../domain/automation.entity';
import type { RunStatus } from '../domain/automation-rules';

/** The NOTIFY channel the scheduler listens on: an automation's schedule changed. */
export const AUTOMATIONS_CHANNEL = 'automations';

export const AUTOMATION_KIND = { code: 'AUTOMATION', notFoundMessage: 'Automação não encontrada' };

export interface AutomationRunRow {
  id: string;
  automationId: number;
  status: RunStatus;
  trigger: string;
  scheduledFor: Date | null;
  startedAt: Date;
  finishedAt: Date | null;
  matchedRecords: number;
  sent: number;
  failed: number;
  skippedByDedup: number;
  skippedByBlockList: number;
  skippedByLimit: number;
  error: string | null;
  /** From the run's campaign: messages delivered and read (receipts, when tracked). */
  delivered: number;
  read: number;
}

/** Runs as the API shows them; a running run's counts come live from its campaign. */
const RUN_SELECT = `
  SELECT r.id, r.automation_id AS "automationId", r.status, r.trigger, r.scheduled_for AS "scheduledFor",
         r.started_at AS "startedAt", r.finished_at AS "finishedAt", r.matched_records AS "matchedRecords",
         CASE WHEN r.status = 'RUNNING' THEN coalesce(c.sent_contacts, r.sent) ELSE r.sent END AS sent,
         CASE WHEN r.status = 'RUNNING' THEN coalesce(c.failed_contacts, r.failed) ELSE r.failed END AS failed,
         r.skipped_by_dedup AS "skippedByDedup", r.skipped_by_block_list AS "skippedByBlockList",
         r.skipped_by_limit AS "skippedByLimit", r.error,
         coalesce(c.delivered_contacts, 0) AS delivered, coalesce(c.read_contacts, 0) AS read
    FROM automation_runs r LEFT JOIN campaigns c ON c.id = r.campaign_id`;

export async function findRun(manager: EntityManager, runId: string): Promise<AutomationRunRow> {
  const rows: AutomationRunRow[] = await manager.query(`${RUN_SELECT} WHERE r.id = $1`, [runId]);
  return rows[0];
}

@Injectable()
export class AutomationsRepository extends TenantRepository<Automation> {
  constructor(@InjectRepository(Automation) repository: Repository<Automation>) {
    super(repository, AUTOMATION_KIND);
  }

  /** All of the company's automations, newest first, then by name. */
  list(companyId: number): Promise<Automation[]> {
    return this.repository.find({
      where: { companyId },
      order: { createdAt: 'DESC', name: 'ASC' },
    });
  }

  count(companyId: number): Promise<number> {
    return this.repository.count({ where: { companyId } });
  }

  save(automation: Automation): Promise<Automation> {
    return this.repository.save(automation);
  }

  /**
   * Claims up to `limit` due automations of every company for `leaseSeconds` (SKIP LOCKED and a
   * lease, so one instance takes each occurrence).
   */
  async claimDue(limit: number, leaseSeconds: number): Promise<Automation[]> {
    const ids = await queryRows<{ id: number }>(
      this.repository.manager,
      `UPDATE automations SET locked_until = now() + make_interval(secs => $2)
        WHERE id IN (SELECT id FROM automations
                      WHERE is_active AND next_run_at <= now() AND (locked_until IS NULL OR locked_until < now())
                      ORDER BY next_run_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [limit, leaseSeconds],
    );
    if (ids.length === 0) {
      return [];
    }
    return this.repository.findBy({ id: In(ids.map((r) => r.id)) });
  }

  /**
   * Moves a claimed automation from the occurrence `scheduledFor` on to its next one and
   * releases its lease. Answers whether this call consumed it: only when next_run_at still
   * holds that occurrence (to the millisecond JavaScript dates keep), so that of two instances
   * (or a worker whose lease ran out) only one fires it, whatever their clocks say.
   */
  async consumeOccurrence(
    id: number,
    scheduledFor: Date,
    nextRunAt: Date | null,
  ): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.repository.manager,
      `UPDATE automations SET next_run_at = $3, locked_until = NULL
        WHERE id = $1 AND abs(extract(epoch FROM next_run_at - $2::timestamptz)) < 0.001
        RETURNING id`,
      [id, scheduledFor, nextRunAt],
    );
    return rows.length > 0;
  }

  /** The database clock: occurrences are reckoned by it, not by this instance's clock. */
  async databaseNow(): Promise<Date> {
    const rows = await queryRows<{ now: Date }>(this.repository.manager, `SELECT now() AS now`);
    return rows[0].now;
  }

  /** Milliseconds until the earliest active automation is due (negative when overdue); null when none. */
  async msUntilNextDue(): Promise<number | null> {
    const rows: Array<{ ms: number | null }> = await this.repository.query(
      `SELECT extract(epoch FROM min(next_run_at) - now()) * 1000 AS ms FROM automations WHERE is_active`,
    );
    return rows[0]?.ms === null || rows[0]?.ms === undefined ? null : Number(rows[0].ms);
  }

  /** Whether an active automation of the company sends through this gateway configuration. */
  async anyActiveUsingGateway(companyId: number, gatewayConfigId: number): Promise<boolean> {
    const rows: unknown[] = await this.repository.query(
      `SELECT 1 FROM automations WHERE company_id = $1 AND gateway_config_id = $2 AND is_active LIMIT 1`,
      [companyId, gatewayConfigId],
    );
    return rows.length > 0;
  }

  /** Wakes the scheduler, so that a changed schedule counts at once rather than at its next poll. */
  async announceChanged(): Promise<void> {
    await this.repository.query(`SELECT pg_notify($1, '')`, [AUTOMATIONS_CHANNEL]);
  }

  /**
   * Deletes the automation; its runs and sent-log go with it (ON DELETE CASCADE). A campaign
   * still sending for one of its runs (one at most: one run in progress per automation) is
   * cancelled first, through Campaign.cancel.
   */
  async deleteCancellingRuns(companyId: number, id: number, now: Date): Promise<void> {
    await this.repository.manager.transaction(async (manager) => {
      const sending = await manager
        .getRepository(Campaign)
        .createQueryBuilder('campaign')
        .setLock('pessimistic_write')
        .where(
          'campaign.automation_run_id IN (SELECT id FROM automation_runs WHERE automation_id = :id)',
          { id },
        )
        .andWhere(`campaign.status IN ('ACTIVE', 'PAUSED')`)
        .getMany();
      for (const campaign of sending) {
        campaign.cancel(now);
        await manager.save(campaign);
      }
      await manager.getRepository(Automation).delete({ companyId, id });
    });
  }

  runs(automationId: number, limit: number): Promise<AutomationRunRow[]> {
    return this.repository.query(
      `${RUN_SELECT} WHERE r.automation_id = $1 ORDER BY r.id DESC LIMIT $2`,
      [automationId, limit],
    );
  }
}
