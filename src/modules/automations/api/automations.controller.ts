import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  UseGuards,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { AppConfig } from '../../../config/app-config.service';
import { AutomationsService } from '../application/automations.service';
import type {
  Automation,
  AutomationChanges,
  AutomationSettings,
} from '../domain/automation.entity';
import type { AutomationFilter, AutomationMessage } from '../domain/automation-rules';
import {
  CreateAutomationDto,
  FilterDto,
  MessageConfigDto,
  TestSendDto,
  UpdateAutomationDto,
} from './automation.dto';
import {
  AutomationResponse,
  AutomationRunResponse,
  TestSendResponse,
  toAutomationResponse,
  toAutomationRunResponse,
} from './automation.response';
import { AutomationsEnabledGuard } from './automations-enabled.guard';
import { pollDefinitionOf } from '../../../common/messaging/poll';

@ApiTags('Automações')
@CompanyAuthenticated()
@UseGuards(AutomationsEnabledGuard)
@ApiErrors(404)
@Controller('api/automations')
export class AutomationsController {
  constructor(
    private readonly automations: AutomationsService,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Cria uma automação (envio recorrente filtrado, com deduplicação e limite)',
  })
  @ApiCreatedResponse({ type: AutomationResponse })
  async create(
    @CurrentCompany() company: CompanySession,
    @Body() body: CreateAutomationDto,
  ): Promise<AutomationResponse> {
    return this.respond(await this.automations.create(company, settingsOf(body)));
  }

  @Get()
  @ApiOperation({ summary: 'Todas as automações, mais novas primeiro e depois por nome' })
  @ApiOkResponse({ type: AutomationResponse, isArray: true })
  async list(@CurrentCompany() company: CompanySession): Promise<AutomationResponse[]> {
    return (await this.automations.list(company)).map((a) => this.respond(a));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Uma automação, com filtros e mensagem' })
  @ApiOkResponse({ type: AutomationResponse })
  async get(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<AutomationResponse> {
    return this.respond(await this.automations.get(company, id));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Atualização parcial; campos omitidos mantêm o valor; nextRunAt é recalculado',
  })
  @ApiOkResponse({ type: AutomationResponse })
  async update(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateAutomationDto,
  ): Promise<AutomationResponse> {
    return this.respond(await this.automations.update(company, id, changesOf(body)));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Exclui a automação, suas execuções e o registro de envios' })
  async delete(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<void> {
    await this.automations.delete(company, id);
  }

  @Get(':id/runs')
  @ApiOperation({ summary: 'Execuções, mais novas primeiro (as 100 últimas)' })
  @ApiOkResponse({ type: AutomationRunResponse, isArray: true })
  async runs(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<AutomationRunResponse[]> {
    return (await this.automations.runs(company, id)).map((run) =>
      toAutomationRunResponse(run, this.config.appTimezone),
    );
  }

  @Post(':id/run-now')
  @HttpCode(202)
  @ApiOperation({ summary: 'Inicia uma execução agora' })
  @ApiAcceptedResponse({ type: AutomationRunResponse })
  async runNow(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<AutomationRunResponse> {
    return toAutomationRunResponse(
      await this.automations.runNow(company, id),
      this.config.appTimezone,
    );
  }

  @Post(':id/test-send')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Envia uma mensagem de teste (primeiro registro que casa com os filtros); não cria execução',
  })
  @ApiOkResponse({ type: TestSendResponse })
  testSend(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Body() body: TestSendDto,
  ): Promise<TestSendResponse> {
    return this.automations.testSend(company, id, body.phoneNumber);
  }

  private respond(automation: Automation): AutomationResponse {
    return toAutomationResponse(automation, this.config.appTimezone);
  }
}

function filtersOf(filters: FilterDto[]): AutomationFilter[] {
  return filters.map((f) => ({
    filterId: f.filterId,
    value: f.value ?? '',
    operator: f.operator ?? 'equals',
    ignoreYear: f.ignoreYear ?? false,
  }));
}

function messageOf(m: MessageConfigDto): AutomationMessage {
  return {
    type: m.type,
    message: m.message ?? null,
    mediaUrl: m.mediaUrl ?? null,
    mediaType: m.mediaType ?? null,
    fileName: m.fileName ?? null,
    caption: m.caption ?? null,
    pollData: pollDefinitionOf(m.pollData),
    template: m.template
      ? {
          name: m.template.name.trim(),
          language: m.template.language,
          bodyParameters: m.template.bodyParameters ?? [],
          headerMedia: m.template.headerMedia ?? null,
        }
      : null,
  };
}

function settingsOf(body: CreateAutomationDto): AutomationSettings {
  return {
    name: body.name.trim(),
    description: body.description ?? null,
    isActive: body.isActive ?? true,
    scheduleType: body.scheduleType,
    schedule: { ...body.schedule },
    databaseConfigId: body.databaseConfigId,
    // With a pool, the one number every reader of gatewayConfigId sees is the pool's first.
    gatewayConfigId: body.gatewayConfigIds?.[0] ?? (body.gatewayConfigId as number),
    gatewayConfigIds: body.gatewayConfigIds ?? null,
    filters: filtersOf(body.filters ?? []),
    messageConfig: messageOf(body.messageConfig),
    intervalMinSeconds: body.intervalMinSeconds ?? 5,
    intervalMaxSeconds: body.intervalMaxSeconds ?? Math.max(12, body.intervalMinSeconds ?? 5),
    notificationPhone: body.notificationPhone ?? null,
    dedupStrategy: body.dedupStrategy ?? 'ONCE',
    dedupCooldownDays:
      body.dedupStrategy === 'COOLDOWN_DAYS' ? (body.dedupCooldownDays ?? null) : null,
    sendLimitPerRun: body.sendLimitPerRun ?? null,
  };
}

function changesOf(body: UpdateAutomationDto): AutomationChanges {
  return {
    name: body.name?.trim(),
    description: body.description,
    isActive: body.isActive,
    scheduleType: body.scheduleType,
    schedule: body.schedule ? { ...body.schedule } : undefined,
    filters: body.filters ? filtersOf(body.filters) : undefined,
    messageConfig: body.messageConfig ? messageOf(body.messageConfig) : undefined,
    notificationPhone: body.notificationPhone,
    sendLimitPerRun: body.sendLimitPerRun,
    intervalMinSeconds: body.intervalMinSeconds,
    intervalMaxSeconds: body.intervalMaxSeconds,
    gatewayConfigIds: body.gatewayConfigIds,
  };
}
