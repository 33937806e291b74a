import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../../../common/errors/domain-error';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import { GatewayTemplatesService } from '../../gateway/application/gateway-templates.service';
import { usesNamedParameters } from '../../gateway/domain/gateway-template';
import { type CampaignTemplate, templateProblems } from '../domain/campaign-template';
import { type FieldErrors, storedTemplateOf, type TemplateInput } from './campaign-input';

const POLLS_REFUSED =
  'a API oficial do WhatsApp não envia enquetes: use um modelo aprovado (template) ou uma mensagem';
const TEMPLATE_NEEDS_CLOUD =
  'só pode ser usado com uma configuração da API oficial (provider CLOUD_API)';

/**
 * What a campaign sends, against the numbers it sends through (docs/API-RULES.md, "Template
 * campaigns"): a template only on the official API, and as its business account has it
 * (GatewayTemplatesService.find: approved, its parameters and header media); no poll on the
 * official API. A 400 naming the field, before anything is written.
 */
@Injectable()
export class CampaignTemplateCheck {
  constructor(
    private readonly configs: GatewayConfigsService,
    private readonly templates: GatewayTemplatesService,
  ) {}

  /**
   * `checkAccount`: read the template on each account (a draft's is read at its launch);
   * `fieldPrefix` names the object the fields sit in (an automation's messageConfig.).
   */
  async assertFits(
    companyId: number,
    gatewayConfigIds: readonly number[],
    content: { template?: TemplateInput | null; pollData?: unknown },
    checkAccount: boolean,
    fieldPrefix = '',
  ): Promise<void> {
    if (!content.template && !content.pollData) {
      return;
    }
    const configs = await Promise.all(
      gatewayConfigIds.map((id) => this.configs.get(companyId, id)),
    );
    const cloud = configs.filter((config) => config.provider === 'CLOUD_API');
    const errors: FieldErrors = [];
    if (content.template && cloud.length < configs.length) {
      errors.push(['template', TEMPLATE_NEEDS_CLOUD]);
    }
    if (content.pollData && cloud.length > 0) {
      errors.push(['pollData', POLLS_REFUSED]);
    }
    const template = storedTemplateOf(content.template ?? undefined);
    if (checkAccount && template && errors.length === 0) {
      errors.push(...(await this.accountProblems(companyId, cloud, template)));
    }
    if (errors.length > 0) {
      throw new ValidationFailedError(
        errors.map(([field, message]) => [fieldPrefix + field, message]),
      );
    }
  }

  /** The template as each account has it; the first account that refuses it answers. */
  private async accountProblems(
    companyId: number,
    configs: ReadonlyArray<{ id: number }>,
    template: CampaignTemplate,
  ): Promise<FieldErrors> {
    for (const config of configs) {
      const found = await this.templates.find(
        companyId,
        config.id,
        template.name,
        template.language,
      );
      const problems = templateProblems(
        template,
        found && { ...found, namedParameters: usesNamedParameters(found) },
      );
      if (problems.length > 0) {
        return problems;
      }
    }
    return [];
  }
}
