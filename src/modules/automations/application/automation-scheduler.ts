import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../common/persistence/transaction';
import { DomainError } from '../../../common/errors/domain-error';
import { Clock } from '../../../common/time/clock';
import { BackgroundWorker, WorkerContext } from '../../../common/work/background-worker';
import { Automation } from '../domain/automation.entity';
import { nextRunAfter } from '../domain/automation-schedule';
import { MISSED_RUN_GRACE_MS } from '../domain/automation-rules';
import { AutomationsRepository } from '../infrastructure/automations.repository';
import { AUTOMATIONS_CHANNEL } from '../infrastructure/automations.repository';
import { AutomationRunInProgressError, AutomationRunner } from './automation-runner';

const CLAIM_BATCH = 50;
const LEASE_SECONDS = 120;

/**
 * Claims due automations (SKIP LOCKED and a lease, so one instance takes each occurrence),
 * moves next_run_at to the following occurrence and starts the run. An occurrence missed by
 * more than six hours (the service was down) is recorded as SKIPPED instead; a more recent one
 * runs once, however many occurrences were missed.
 */
@Injectable()
export class AutomationScheduler extends BackgroundWorker {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly automations: AutomationsRepository,
    private readonly runner: AutomationRunner,
    private readonly clock: Clock,
    context: WorkerContext,
  ) {
    super(context, { name: 'automations', idleMs: 1_000, wakeOn: AUTOMATIONS_CHANNEL });
  }

  protected async step(): Promise<number | null> {
    const due = await this.automations.claimDue(CLAIM_BATCH, LEASE_SECONDS);
    for (const automation of due) {
      await this.fire(automation);
    }
    return due.length > 0 ? 0 : this.automations.msUntilNextDue();
  }

  private async fire(automation: Automation): Promise<void> {
    const scheduledFor = automation.nextRunAt as Date;
    // The database clock, and never before the occurrence itself: an instance whose clock is
    // behind must not compute the same occurrence again as the next one.
    const dbNow = await this.automations.databaseNow();
    const now = new Date(Math.max(dbNow.getTime(), scheduledFor.getTime()));
    const next = nextRunAfter(automation.scheduleType, automation.schedule, now);
    // The occurrence is consumed first: a crash after this point skips it rather than repeating
    // it, and an instance that finds it already consumed leaves it alone.
    if (!(await this.automations.consumeOccurrence(automation.id, scheduledFor, next))) {
      return;
    }
    if (now.getTime() - scheduledFor.getTime() > MISSED_RUN_GRACE_MS) {
      await this.unitOfWork.run((tx) => this.runner.recordMissed(tx, automation, scheduledFor));
      this.logger.warn(
        { automationId: automation.id, scheduledFor },
        'Missed automation run skipped',
      );
      return;
    }
    try {
      await this.runner.start(automation, 'SCHEDULE', scheduledFor);
    } catch (error) {
      if (error instanceof AutomationRunInProgressError) {
        this.logger.warn(
          { automationId: automation.id },
          'Previous run still in progress; occurrence skipped',
        );
        return;
      }
      const reason =
        error instanceof DomainError ? error.message : 'erro interno ao iniciar a execução';
      this.logger.error({ automationId: automation.id, err: error }, 'Automation run not started');
      await this.runner.recordFailure(automation, scheduledFor, reason);
    }
  }
}
