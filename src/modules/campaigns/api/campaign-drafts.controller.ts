import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import type { CompanySession } from '../../../common/session/company-session';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CampaignDraftsService } from '../application/campaign-drafts.service';
import type { Campaign } from '../domain/campaign.entity';
import { blankTemplateWarnings } from '../domain/gateway-media-rules';
import { CampaignResponse, toCampaignResponse } from './campaign.response';
import { UpdateCampaignDto } from './update-campaign.dto';

/** Editing a campaign not sent yet and launching a draft (docs/API-RULES.md, "Drafts: edit and launch"). */
@ApiTags('Campanhas')
@CompanyAuthenticated()
@Controller('api/campaigns')
export class CampaignDraftsController {
  constructor(
    private readonly drafts: CampaignDraftsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @Put(':id')
  @ApiOperation({
    summary: 'Edita uma campanha DRAFT ou SCHEDULED: os campos informados substituem os dela',
    description:
      'Os campos da criação, todos opcionais: o que for omitido fica como está, null limpa um campo opcional (description, message, mídia, pollData, notificationPhone, sendingWindow, pausa longa, databaseConfigId; scheduledFor só num rascunho). contacts substitui a lista inteira (normalizada, sem repetições, com a lista de bloqueio aplicada de novo). Uma forma de gateway informada (gatewayConfigId, gatewayConfigIds ou os três campos) substitui a da campanha; gatewayConfigIds null volta a um número, o primeiro do pool. Valida como a criação: um rascunho continua sem as verificações que rascunhos pulam; uma campanha agendada passa por todas. Mudar scheduledFor reagenda. 409, sem mudar nada, para qualquer outro status.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(403, 404, 409)
  async update(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Body() body: UpdateCampaignDto,
  ): Promise<CampaignResponse> {
    return this.respond(await this.drafts.update(company, id, body));
  }

  @Post(':id/launch')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Lança um rascunho: ACTIVE, ou SCHEDULED quando tem scheduledFor',
    description:
      'Passa pelas verificações da criação que rascunhos pulam (mensagem ou enquete, credenciais e instância do gateway conectada, mídia, enquetes habilitadas, scheduledFor ao menos 5 minutos à frente) e conta no limite de campanhas por hora. Recusado (400 como na criação, 429 no limite), o rascunho fica como estava. Números bloqueados desde que o rascunho foi salvo ficam de fora. 409 para qualquer status além de DRAFT.',
  })
  @ApiOkResponse({ type: CampaignResponse })
  @ApiErrors(403, 404, 409, 429)
  async launch(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<CampaignResponse> {
    return this.respond(await this.drafts.launch(company, id));
  }

  /** The campaign, with creation's warnings about what it will send as it now stands. */
  private respond(campaign: Campaign): CampaignResponse {
    const response = toCampaignResponse(campaign, this.config.appTimezone, this.clock.now());
    const warnings = blankTemplateWarnings({
      message: campaign.messageContent ?? undefined,
      caption: campaign.caption ?? undefined,
      pollData: campaign.pollData ?? undefined,
    });
    return warnings.length > 0 ? { ...response, warnings } : response;
  }
}
