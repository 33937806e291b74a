import type { EntityManager } from 'typeorm';
import { OwnedResources } from '../../../../common/tenancy/owned-resource';
import type { RunStatus } from '../../domain/automation-rules';
import type { Automation } from '../../domain/automation.entity';
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

/** The NOTIFY channel the scheduler listens on: an automation's schedule changed. */
export const AUTOMATIONS_CHANNEL = 'automations';

export abstract class AutomationsRepository extends OwnedResources<Automation> {
  /** All of the company's automations, newest first, then by name. */
  abstract list(companyId: number): Promise<Automation[]>;
  abstract count(companyId: number): Promise<number>;
  abstract save(automation: Automation): Promise<Automation>;
  /**
   * Claims up to `limit` due automations of every company for `leaseSeconds` (SKIP LOCKED and a
   * lease, so one instance takes each occurrence).
   */
  abstract claimDue(limit: number, leaseSeconds: number): Promise<Automation[]>;
  /**
   * Moves a claimed automation from the occurrence `scheduledFor` on to its next one and
   * releases its lease. Answers whether this call consumed it: only when next_run_at still
   * holds that occurrence (to the millisecond JavaScript dates keep), so that of two instances
   * (or a worker whose lease ran out) only one fires it, whatever their clocks say.
   */
  abstract consumeOccurrence(
    id: number,
    scheduledFor: Date,
    nextRunAt: Date | null,
  ): Promise<boolean>;
  /** The database clock: occurrences are reckoned by it, not by this instance's clock. */
  abstract databaseNow(): Promise<Date>;
  /** Milliseconds until the earliest active automation is due (negative when overdue); null when none. */
  abstract msUntilNextDue(): Promise<number | null>;
  /** Whether an active automation of the company sends through this gateway configuration. */
  abstract anyActiveUsingGateway(companyId: number, gatewayConfigId: number): Promise<boolean>;
  /** Wakes the scheduler, so that a changed schedule counts at once rather than at its next poll. */
  abstract announceChanged(): Promise<void>;
  abstract runIdsOf(manager: EntityManager, automationId: number): Promise<string[]>;
  /** Its runs and sent-log go with it (ON DELETE CASCADE). */
  abstract delete(manager: EntityManager, companyId: number, id: number): Promise<void>;
  abstract runs(automationId: number, limit: number): Promise<AutomationRunRow[]>;
}
