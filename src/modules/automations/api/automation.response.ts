import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import type { Automation } from '../domain/automation.entity';
import { DEDUP_STRATEGIES, RUN_STATUSES, RunStatus } from '../domain/automation-rules';
import { SCHEDULE_TYPES } from '../domain/automation-schedule';
import type { AutomationRunRow } from '../infrastructure/automations.repository';
import { FilterDto, MessageConfigDto, ScheduleDto } from './automation.dto';

/** Dates are local to APP_TIMEZONE, `YYYY-MM-DDTHH:mm:ss` (docs/API-RULES.md §1). */
export class AutomationResponse {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() isActive!: boolean;
  @ApiProperty({ enum: SCHEDULE_TYPES }) scheduleType!: string;
  @ApiProperty({ type: ScheduleDto }) schedule!: Record<string, unknown>;
  @ApiProperty() databaseConfigId!: number;
  @ApiProperty() gatewayConfigId!: number;
  @ApiProperty() intervalMinSeconds!: number;
  @ApiProperty() intervalMaxSeconds!: number;
  @ApiProperty({ nullable: true, type: String }) notificationPhone!: string | null;
  @ApiProperty({ enum: DEDUP_STRATEGIES }) dedupStrategy!: string;
  @ApiProperty({ nullable: true, type: Number }) dedupCooldownDays!: number | null;
  @ApiProperty({ nullable: true, type: Number }) sendLimitPerRun!: number | null;
  @ApiProperty({ nullable: true, type: String }) lastRunAt!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Nulo quando inativa' }) nextRunAt!:
    string | null;
  @ApiProperty() createdAt!: string;
  @ApiProperty() updatedAt!: string;
  @ApiProperty({ type: [FilterDto] }) filters!: Array<Record<string, unknown>>;
  @ApiProperty({ type: MessageConfigDto }) messageConfig!: Record<string, unknown>;
}

export function toAutomationResponse(automation: Automation, timezone: string): AutomationResponse {
  const local = (date: Date | null): string | null => formatLocalDateTime(date, timezone);
  return {
    id: automation.id,
    name: automation.name,
    description: automation.description ?? '',
    isActive: automation.isActive,
    scheduleType: automation.scheduleType,
    schedule: { ...automation.schedule },
    databaseConfigId: automation.databaseConfigId,
    gatewayConfigId: automation.gatewayConfigId,
    intervalMinSeconds: automation.intervalMinSeconds,
    intervalMaxSeconds: automation.intervalMaxSeconds,
    notificationPhone: automation.notificationPhone,
    dedupStrategy: automation.dedupStrategy,
    dedupCooldownDays: automation.dedupCooldownDays,
    sendLimitPerRun: automation.sendLimitPerRun,
    lastRunAt: local(automation.lastRunAt),
    nextRunAt: automation.isActive ? local(automation.nextRunAt) : null,
    createdAt: local(automation.createdAt) as string,
    updatedAt: local(automation.updatedAt) as string,
    filters: automation.filters.map((f) => ({ ...f })),
    messageConfig: { ...automation.messageConfig },
  };
}

export class AutomationRunResponse {
  @ApiProperty() id!: number;
  @ApiProperty() automationId!: number;
  @ApiProperty({ enum: RUN_STATUSES }) status!: RunStatus;
  @ApiProperty({ enum: ['SCHEDULE', 'MANUAL'] }) trigger!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) scheduledFor!: string | null;
  @ApiProperty() startedAt!: string;
  @ApiProperty({ nullable: true, type: String }) finishedAt!: string | null;
  @ApiProperty() matchedRecords!: number;
  @ApiProperty() sent!: number;
  @ApiProperty() failed!: number;
  @ApiProperty({ description: 'Entregues (recibos do WhatsApp, com trackDelivery)' })
  delivered!: number;
  @ApiProperty({ description: 'Lidas (recibos do WhatsApp, com trackDelivery)' }) read!: number;
  @ApiProperty() skippedByDedup!: number;
  @ApiProperty() skippedByBlockList!: number;
  @ApiProperty() skippedByLimit!: number;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
}

export function toAutomationRunResponse(
  run: AutomationRunRow,
  timezone: string,
): AutomationRunResponse {
  return {
    id: Number(run.id),
    automationId: run.automationId,
    status: run.status,
    trigger: run.trigger,
    scheduledFor: formatLocalDateTime(run.scheduledFor, timezone),
    startedAt: formatLocalDateTime(run.startedAt, timezone) as string,
    finishedAt: formatLocalDateTime(run.finishedAt, timezone),
    matchedRecords: run.matchedRecords,
    sent: run.sent,
    failed: run.failed,
    delivered: run.delivered,
    read: run.read,
    skippedByDedup: run.skippedByDedup,
    skippedByBlockList: run.skippedByBlockList,
    skippedByLimit: run.skippedByLimit,
    error: run.error,
  };
}

export class TestSendResponse {
  @ApiProperty() success!: boolean;
  @ApiProperty() phoneNumber!: string;
  @ApiProperty() renderedMessage!: string;
  @ApiPropertyOptional() error?: string;
}
