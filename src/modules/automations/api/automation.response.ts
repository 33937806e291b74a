import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { formatLocalDateTime } from '../../../common/time/local-date-time';
import { type Automation, sendersOf } from '../domain/automation.entity';
import {
  DEDUP_STRATEGIES,
  FILTER_OPERATORS,
  MESSAGE_KINDS,
  RUN_STATUSES,
  RunStatus,
} from '../domain/automation-rules';
import { SCHEDULE_TYPES } from '../domain/automation-schedule';
import type { AutomationRunRow } from '../domain/automation-run';
import { ApiNullableObject } from '../../../common/http/api-nullable.decorator';
import { CampaignTemplateResponse, PollDataResponse } from '../../campaigns/api/campaign.response';

/**
 * The schedule as it was stored: the fields of its type, and any other field the caller sent
 * (null when it was sent as null).
 */
export class ScheduleResponse {
  @ApiPropertyOptional({ nullable: true, type: String, example: '09:00' })
  timeOfDay?: string | null;
  @ApiProperty({ example: 'America/Sao_Paulo' }) timezone!: string;
  @ApiPropertyOptional({
    nullable: true,
    type: [Number],
    example: [1, 2, 3, 4, 5],
    description: 'ISO: 1 = segunda … 7 = domingo',
  })
  weekdays?: number[] | null;
  @ApiPropertyOptional({ nullable: true, type: Number, example: 15 }) dayOfMonth?: number | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '0 9 * * 1-5' })
  cronExpression?: string | null;
}

export class FilterResponse {
  @ApiProperty({ example: 'data_nascimento' }) filterId!: string;
  @ApiProperty({ example: 'TODAY' }) value!: string;
  @ApiProperty({ enum: FILTER_OPERATORS }) operator!: string;
  @ApiProperty() ignoreYear!: boolean;
}

/** Every field is present; those the message kind does not use are null. */
export class MessageConfigResponse {
  @ApiProperty({ enum: MESSAGE_KINDS }) type!: string;
  @ApiProperty({ nullable: true, type: String }) message!: string | null;
  @ApiProperty({ nullable: true, type: String }) mediaUrl!: string | null;
  // In OpenAPI 3.0 a nullable enum lists null among its values.
  @ApiProperty({ nullable: true, enum: ['image', 'video', 'document', null], type: String })
  mediaType!: string | null;
  @ApiProperty({ nullable: true, type: String }) fileName!: string | null;
  @ApiProperty({ nullable: true, type: String }) caption!: string | null;
  @ApiNullableObject(PollDataResponse) pollData!: PollDataResponse | null;
  /** Only on a Cloud API configuration: the approved template sent instead of the message. */
  @ApiNullableObject(CampaignTemplateResponse) template!: CampaignTemplateResponse | null;
}

/** Dates are local to APP_TIMEZONE, `YYYY-MM-DDTHH:mm:ss` (docs/API-RULES.md §1). */
export class AutomationResponse {
  @ApiProperty() id!: number;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() isActive!: boolean;
  @ApiProperty({ enum: SCHEDULE_TYPES }) scheduleType!: string;
  @ApiProperty({ type: ScheduleResponse }) schedule!: Record<string, unknown>;
  @ApiProperty() databaseConfigId!: number;
  @ApiProperty({ description: 'Por onde envia; com um pool, o primeiro dele' })
  gatewayConfigId!: number;
  @ApiProperty({
    type: [Number],
    example: [3, 7, 9],
    description:
      'Sempre uma lista: o pool, na ordem dada, ou [gatewayConfigId] para um único número',
  })
  gatewayConfigIds!: number[];
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
  @ApiProperty({ type: [FilterResponse] }) filters!: Array<Record<string, unknown>>;
  @ApiProperty({ type: MessageConfigResponse }) messageConfig!: Record<string, unknown>;
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
    gatewayConfigIds: sendersOf(automation),
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
    messageConfig: {
      ...automation.messageConfig,
      template: automation.messageConfig.template ?? null,
    },
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
  @ApiProperty({
    description:
      'Pessoas que responderam dentro da janela de resposta (settings reachOut.replyWindowHours; com trackDelivery)',
  })
  replied!: number;
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
    replied: run.replied,
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
