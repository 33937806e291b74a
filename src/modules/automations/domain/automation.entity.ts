import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { AutomationSchedule, nextRunAfter, ScheduleType } from './automation-schedule';
import type { AutomationFilter, AutomationMessage, DedupStrategy } from './automation-rules';
import { SqlOwnedColumn } from '../../../common/persistence/sql-owned-column';
import { Timestamped } from '../../../common/persistence/timestamped';

export interface AutomationSettings {
  name: string;
  description: string | null;
  isActive: boolean;
  scheduleType: ScheduleType;
  schedule: AutomationSchedule;
  databaseConfigId: number;
  /** The one number it sends through; with a pool, the pool's first. */
  gatewayConfigId: number;
  /** A pool of senders (campaigns' domain/sender-pool.ts), in order; null on one number. */
  gatewayConfigIds: number[] | null;
  filters: AutomationFilter[];
  messageConfig: AutomationMessage;
  intervalMinSeconds: number;
  intervalMaxSeconds: number;
  notificationPhone: string | null;
  dedupStrategy: DedupStrategy;
  dedupCooldownDays: number | null;
  sendLimitPerRun: number | null;
}

export type AutomationChanges = Partial<
  Pick<
    AutomationSettings,
    | 'name'
    | 'description'
    | 'isActive'
    | 'scheduleType'
    | 'schedule'
    | 'filters'
    | 'messageConfig'
    | 'notificationPhone'
    | 'sendLimitPerRun'
    | 'intervalMinSeconds'
    | 'intervalMaxSeconds'
    | 'gatewayConfigIds'
  >
>;

@Entity({ name: 'automations' })
// Descending and partial indexes TypeORM cannot describe: the migration defines them.
@Index('automations_company_created_idx', { synchronize: false })
@Index('automations_due_idx', { synchronize: false })
@Index('automations_gateway_config_idx', { synchronize: false })
@Check('automations_schedule_type_check', "schedule_type IN ('DAILY','WEEKLY','MONTHLY','CRON')")
@Check('automations_dedup_check', "dedup_strategy IN ('NEVER','ONCE','COOLDOWN_DAYS')")
@Check(
  'automations_pool_check',
  'gateway_config_ids IS NULL OR (cardinality(gateway_config_ids) BETWEEN 1 AND 20 AND gateway_config_ids[1] = gateway_config_id)',
)
@Check(
  'automations_interval_check',
  'interval_min_seconds >= 0 AND interval_min_seconds <= interval_max_seconds',
)
export class Automation extends Timestamped implements AutomationSettings {
  @PrimaryGeneratedColumn({ name: 'id' }) id!: number;
  @Column({ name: 'company_id', type: 'integer' })
  @ForeignKey('companies', { name: 'automations_company_id_fkey', onDelete: 'CASCADE' })
  companyId!: number;
  @Column({ name: 'name', type: 'varchar', length: 100 }) name!: string;
  @Column({ name: 'description', type: 'text', nullable: true }) description!: string | null;
  @Column({ name: 'is_active', type: 'boolean' }) isActive!: boolean;
  @Column({ name: 'schedule_type', type: 'varchar', length: 10 }) scheduleType!: ScheduleType;
  @Column({ name: 'schedule', type: 'jsonb' }) schedule!: AutomationSchedule;
  @Column({ name: 'database_config_id', type: 'integer' }) databaseConfigId!: number;
  @Column({ name: 'gateway_config_id', type: 'integer' }) gatewayConfigId!: number;
  @Column({ name: 'gateway_config_ids', type: 'integer', array: true, nullable: true })
  gatewayConfigIds!: number[] | null;
  @Column({ name: 'filters', type: 'jsonb', default: () => "'[]'" }) filters!: AutomationFilter[];
  @Column({ name: 'message_config', type: 'jsonb' }) messageConfig!: AutomationMessage;
  @Column({ name: 'interval_min_seconds', type: 'integer' }) intervalMinSeconds!: number;
  @Column({ name: 'interval_max_seconds', type: 'integer' }) intervalMaxSeconds!: number;
  @Column({ name: 'notification_phone', type: 'varchar', length: 20, nullable: true })
  notificationPhone!: string | null;
  @Column({ name: 'dedup_strategy', type: 'varchar', length: 20 }) dedupStrategy!: DedupStrategy;
  @Column({ name: 'dedup_cooldown_days', type: 'integer', nullable: true }) dedupCooldownDays!:
    number | null;
  @Column({ name: 'send_limit_per_run', type: 'integer', nullable: true }) sendLimitPerRun!:
    number | null;
  @Column({ name: 'last_run_at', type: 'timestamptz', nullable: true }) lastRunAt!: Date | null;
  @Column({ name: 'next_run_at', type: 'timestamptz', nullable: true }) nextRunAt!: Date | null;
  /** The scheduler's claim on a due run: only its SQL writes it, so saves never touch it. */
  @SqlOwnedColumn('locked_until', 'timestamptz')
  readonly lockedUntil?: Date | null;

  static create(companyId: number, settings: AutomationSettings, now: Date): Automation {
    const automation = new Automation();
    Object.assign(automation, settings);
    automation.companyId = companyId;
    automation.lastRunAt = null;
    automation.createdAt = now;
    automation.updatedAt = now;
    automation.reschedule(now);
    return automation;
  }

  /** Fields left out keep their value; the next run is computed again from the new schedule. */
  change(changes: AutomationChanges, now: Date): void {
    this.describe(changes);
    if (changes.isActive !== undefined) {
      this.isActive = changes.isActive;
    }
    this.replan(changes);
    this.retarget(changes);
    this.reroute(changes);
    this.rewrite(changes);
    this.updatedAt = now;
    this.reschedule(now);
  }

  /** Name and description, as the list shows them. */
  describe(changes: Pick<AutomationChanges, 'name' | 'description'>): void {
    this.name = pick(changes.name, this.name);
    this.description = pick(changes.description, this.description);
  }

  /** When it runs (call reschedule after). */
  replan(changes: Pick<AutomationChanges, 'scheduleType' | 'schedule'>): void {
    this.scheduleType = pick(changes.scheduleType, this.scheduleType);
    this.schedule = pick(changes.schedule, this.schedule);
  }

  /** Who it sends to, and how many per run. */
  retarget(changes: Pick<AutomationChanges, 'filters' | 'sendLimitPerRun'>): void {
    this.filters = pick(changes.filters, this.filters);
    this.sendLimitPerRun = pick(changes.sendLimitPerRun, this.sendLimitPerRun);
  }

  /**
   * The numbers it sends through: a new pool, whose first becomes gatewayConfigId, or null for
   * one number, the one it has (a pool's first).
   */
  reroute(changes: Pick<AutomationChanges, 'gatewayConfigIds'>): void {
    if (changes.gatewayConfigIds === undefined) {
      return;
    }
    this.gatewayConfigIds = changes.gatewayConfigIds;
    this.gatewayConfigId = changes.gatewayConfigIds?.[0] ?? this.gatewayConfigId;
  }

  /** What it sends, at what pace, and who hears about each run. */
  rewrite(
    changes: Pick<
      AutomationChanges,
      'messageConfig' | 'intervalMinSeconds' | 'intervalMaxSeconds' | 'notificationPhone'
    >,
  ): void {
    this.messageConfig = pick(changes.messageConfig, this.messageConfig);
    this.intervalMinSeconds = pick(changes.intervalMinSeconds, this.intervalMinSeconds);
    this.intervalMaxSeconds = pick(changes.intervalMaxSeconds, this.intervalMaxSeconds);
    this.notificationPhone = pick(changes.notificationPhone, this.notificationPhone);
  }

  /** nextRunAt is null while inactive, else the first occurrence after `from`. */
  reschedule(from: Date): void {
    this.nextRunAt = this.isActive ? nextRunAfter(this.scheduleType, this.schedule, from) : null;
  }
}

/** The configurations its runs send through, in order: the pool's, or the one number. */
export function sendersOf(
  automation: Pick<AutomationSettings, 'gatewayConfigId' | 'gatewayConfigIds'>,
): number[] {
  return automation.gatewayConfigIds ?? [automation.gatewayConfigId];
}

/** The given value, or the current one when the change left the field out. */
function pick<T>(given: T | undefined, current: T): T {
  return given === undefined ? current : given;
}
