import { Injectable, Logger } from '@nestjs/common';
import { CampaignDeliveryEvents } from '../../campaigns/application/campaign-delivery-events';
import { GatewayTemplatesService } from '../../gateway/application/gateway-templates.service';
import { MetaWebhookSources } from '../../gateway/application/meta-webhook-sources';
import { atOf } from './inbound-messages';
import { eventData, StoredGatewayEvent } from './ports/gateway-events.repository';

/**
 * Template events that stop a template from sending (message_template_status_update): its
 * campaigns pause. APPROVED, REJECTED and the others only record the status.
 */
const STOPPED_TEMPLATE_EVENTS = new Set(['PAUSED', 'DISABLED', 'PENDING_DELETION', 'ARCHIVED']);
/**
 * Meta reports a number whose quality dropped to low (RED) as FLAGGED, and its recovery as
 * UNFLAGGED (phone_number_quality_update); tier changes come as UPGRADE / DOWNGRADE with the
 * new `current_limit`.
 */
const QUALITY_OF_EVENT: Record<string, string> = { FLAGGED: 'RED', UNFLAGGED: 'GREEN' };

export function templateStoppedReason(name: string, language: string, status: string): string {
  const state = status === 'PAUSED' ? 'pausado' : 'desativado';
  return `o template ${name} (${language}) foi ${state} pela Meta (${status}): escolha outro template aprovado ou aguarde a Meta reativá-lo e retome a campanha`;
}

export const QUALITY_RED_REASON =
  'a Meta baixou a qualidade do número para vermelha (RED): reveja o conteúdo e o público da campanha antes de retomá-la, ou o número pode ser restringido';

/**
 * What Meta says of a Cloud API business account beyond messages, applied one event at a time
 * (each pause is a transaction of its own, as the engine's are): a template's status is
 * recorded for the company's configurations on that business account, and one that stops the
 * template pauses the company's ACTIVE campaigns that send it through them; a number's quality
 * and tier are recorded on its configuration, and a RED quality pauses its ACTIVE campaigns.
 * A report older than what is recorded changes nothing (and pauses nothing): Meta's deliveries
 * come in any order, and again.
 */
@Injectable()
export class CloudAccountEvents {
  private readonly logger = new Logger(CloudAccountEvents.name);

  constructor(
    private readonly sources: MetaWebhookSources,
    private readonly campaigns: CampaignDeliveryEvents,
    private readonly templates: GatewayTemplatesService,
  ) {}

  async apply(event: StoredGatewayEvent): Promise<void> {
    const data = eventData(event.payload);
    if (typeof data.businessAccountId !== 'string') {
      return;
    }
    if (event.event === 'template.status') {
      await this.applyTemplateStatus(event, data, data.businessAccountId);
    } else if (event.event === 'number.quality') {
      await this.applyQuality(event, data, data.businessAccountId);
    }
  }

  private async applyTemplateStatus(
    event: StoredGatewayEvent,
    data: Record<string, unknown>,
    businessAccountId: string,
  ): Promise<void> {
    const { status, name, language } = data;
    if (typeof status !== 'string' || typeof name !== 'string' || typeof language !== 'string') {
      return;
    }
    const recorded = await this.sources.recordTemplateStatus(event.companyId, businessAccountId, {
      name,
      language,
      status,
      at: atOf(event),
    });
    if (!recorded.applied) {
      return;
    }
    if (STOPPED_TEMPLATE_EVENTS.has(status)) {
      await this.pauseTemplateCampaigns(
        event.companyId,
        recorded.configIds,
        { name, language },
        status,
      );
    }
    await this.refreshTemplates(event.companyId, recorded.configIds);
  }

  private async pauseTemplateCampaigns(
    companyId: number,
    configIds: number[],
    template: { name: string; language: string },
    status: string,
  ): Promise<void> {
    const { name, language } = template;
    const paused = await this.campaigns.pauseActiveCampaigns(
      companyId,
      configIds,
      templateStoppedReason(name, language, status),
      template,
    );
    this.logger.warn(
      { companyId, status, campaigns: paused },
      'Cloud API template stopped by Meta: its campaigns paused',
    );
  }

  /**
   * The whole list read again from Meta (a change may come with others: a new version, its
   * category); at best effort: the status the webhook gave is already recorded, and a failed
   * read waits for the next change or an asked refresh.
   */
  private async refreshTemplates(companyId: number, configIds: number[]): Promise<void> {
    for (const configId of configIds) {
      try {
        await this.templates.refresh(companyId, configId);
      } catch (error) {
        this.logger.warn(
          {
            companyId,
            gatewayConfigId: configId,
            err: error instanceof Error ? error.name : 'unknown',
          },
          'Templates not read again after Meta reported a change',
        );
      }
    }
  }

  private async applyQuality(
    event: StoredGatewayEvent,
    data: Record<string, unknown>,
    businessAccountId: string,
  ): Promise<void> {
    const digits = data.displayPhoneNumber;
    if (typeof digits !== 'string' || digits === '') {
      return;
    }
    const quality = typeof data.event === 'string' ? (QUALITY_OF_EVENT[data.event] ?? null) : null;
    const tier = typeof data.currentLimit === 'string' ? data.currentLimit : null;
    const configIds = await this.sources.configsOfDisplayNumber(
      event.companyId,
      businessAccountId,
      digits,
    );
    for (const configId of configIds) {
      const news = await this.sources.recordNumberQuality(configId, {
        qualityRating: quality,
        messagingLimitTier: tier,
        at: atOf(event),
      });
      if (news && quality === 'RED') {
        const paused = await this.campaigns.pauseActiveCampaigns(
          event.companyId,
          [configId],
          QUALITY_RED_REASON,
        );
        this.logger.warn(
          { companyId: event.companyId, gatewayConfigId: configId, campaigns: paused },
          'Cloud API number rated RED by Meta: its campaigns paused',
        );
      }
    }
  }
}
