import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import type { Transaction } from '../../../common/persistence/transaction';
import { queryMilliseconds, queryRows } from '../../../database/query-rows';
import { managerOf } from '../../../database/transactions';
import { TenantRepository } from '../../../common/tenancy/owned-resource';
import type { AutomationRunRow } from '../domain/automation-run';
import { Automation } from '../domain/automation.entity';
import { RUN_SELECT } from './automation-runs.repository';

/** The NOTIFY channel the scheduler listens on: an automation's schedule changed. */
export const AUTOMATIONS_CHANNEL = 'automations';

export const AUTOMATION_KIND = { code: 'AUTOMATION', notFoundMessage: 'Automação não encontrada' };

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
    return queryMilliseconds(
      this.repository.manager,
      `SELECT extract(epoch FROM min(next_run_at) - now()) * 1000 AS ms FROM automations WHERE is_active`,
    );
  }

  /**
   * Whether an active automation of the company sends through this gateway configuration: its
   * one number, or any number of its pool.
   */
  async anyActiveUsingGateway(companyId: number, gatewayConfigId: number): Promise<boolean> {
    const rows: unknown[] = await this.repository.query(
      `SELECT 1 FROM automations
        WHERE company_id = $1 AND is_active
          AND (gateway_config_id = $2 OR $2 = ANY (gateway_config_ids))
        LIMIT 1`,
      [companyId, gatewayConfigId],
    );
    return rows.length > 0;
  }

  /** Wakes the scheduler, so that a changed schedule counts at once rather than at its next poll. */
  async announceChanged(): Promise<void> {
    await this.repository.query(`SELECT pg_notify($1, '')`, [AUTOMATIONS_CHANNEL]);
  }

  async runIdsOf(tx: Transaction, automationId: number): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      tx,
      `SELECT id FROM automation_runs WHERE automation_id = $1`,
      [automationId],
    );
    return rows.map((row) => row.id);
  }

  /** Its runs and sent-log go with it (ON DELETE CASCADE). */
  async delete(tx: Transaction, companyId: number, id: number): Promise<void> {
    await managerOf(tx).getRepository(Automation).delete({ companyId, id });
  }

  runs(automationId: number, limit: number): Promise<AutomationRunRow[]> {
    return this.repository.query(
      `${RUN_SELECT} WHERE r.automation_id = $1 ORDER BY r.id DESC LIMIT $2`,
      [automationId, limit],
    );
  }
}
