import { Body, Controller, Delete, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent } from '../../../common/idempotency/idempotency.interceptor';
import { ApiErrors } from '../../../common/http/api-errors.decorator';
import { IdParamPipe } from '../../../common/http/id-param.pipe';
import type { CompanySession } from '../../../common/session/company-session';
import { Clock } from '../../../common/time/clock';
import { AppConfig } from '../../../config/app-config.service';
import { CompanyAuthenticated, CurrentCompany } from '../../auth/api/guards/auth.decorators';
import { CampaignCopiesService } from '../application/campaign-copies.service';
import { toCampaignResponse } from './campaign.response';
import { CampaignCopyResponse, DuplicateCampaignDto } from './duplicate-campaign.dto';

@ApiTags('Campanhas')
@CompanyAuthenticated()
@Controller('api/campaigns')
export class CampaignCopiesController {
  constructor(
    private readonly copies: CampaignCopiesService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @Idempotent()
  @Post(':id/duplicate')
  @HttpCode(201)
  @ApiOperation({
    summary:
      'Cria um rascunho (DRAFT) com a mensagem, os números e os ajustes da campanha e parte dos seus contatos: um envio de acompanhamento',
    description:
      'Copia tudo o que a criação recebe (mensagem, mídia, enquete, pausas, janela, números — um pool continua pool, com os mesmos números —, telefone de notificação, base de variáveis), nunca o agendamento. Os contatos escolhidos por `contacts` são copiados como PENDING; os números hoje na lista de bloqueio (quando a empresa a aplica) e os que pediram para sair ficam de fora e são contados em skippedContacts. Nome padrão: "<original> (cópia)". Um rascunho só conta no limite de criações por hora quando é lançado. 409 quando nenhum contato corresponde ao modo (ou todos estão bloqueados): nada é criado.',
  })
  @ApiCreatedResponse({ type: CampaignCopyResponse })
  @ApiErrors(403, 404, 409)
  async duplicate(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
    @Body() body: DuplicateCampaignDto,
  ): Promise<CampaignCopyResponse> {
    const { campaign, contacts } = await this.copies.duplicate(company, id, body);
    return {
      ...toCampaignResponse(campaign, this.config.appTimezone, this.clock.now()),
      copiedContacts: contacts.copied,
      skippedContacts: { blocked: contacts.blocked, optedOut: contacts.optedOut },
    };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Exclui uma campanha DRAFT, COMPLETED, CANCELLED ou FAILED com os seus contatos',
    description:
      'A campanha (e, num pool, os registros de cada número) some de todas as leituras assim que a resposta chega; os contatos são apagados em lotes logo depois, em segundo plano, e a exclusão continua após um reinício. Continuam valendo: a contagem de envios do dia de cada número (limite diário), o limite de criações por hora (uma campanha criada na última hora continua contando) e os eventos de webhook já gerados. 409, sem mudar nada: campanha SCHEDULED, ACTIVE ou PAUSED (cancele antes), ou com mensagens ainda saindo ou em confirmação com o gateway (logo depois de um cancelamento: tente em alguns minutos).',
  })
  @ApiNoContentResponse({ description: 'Excluída' })
  @ApiErrors(403, 404, 409)
  async delete(
    @CurrentCompany() company: CompanySession,
    @Param('id', IdParamPipe) id: number,
  ): Promise<void> {
    await this.copies.delete(company, id);
  }
}
