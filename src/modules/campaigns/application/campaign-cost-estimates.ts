import { Injectable } from '@nestjs/common';
import {
  estimatedCostOf,
  type PricedCategory,
  pricedCategoryOf,
} from '../../../common/messaging/message-prices';
import { CompanySettingsService } from '../../auth/application/company-settings.service';
import { GatewayTemplatesService } from '../../gateway/application/gateway-templates.service';
import type { Campaign } from '../domain/campaign.entity';

/** What a template campaign should cost: a message to each contact at its category's price. */
export interface EstimatedCost {
  currency: 'USD';
  category: PricedCategory;
  messages: number;
  /** Null without the company's price table (settings `messagePrices`). */
  amount: number | null;
}

/**
 * The estimate shown when a campaign is created (docs/API-RULES.md, "What Cloud API messages
 * cost"): its contacts × the price of its template's category, as Meta lists the template.
 * Messages Meta does not charge (a free customer-service window) make the real cost lower.
 */
@Injectable()
export class CampaignCostEstimates {
  constructor(
    private readonly templates: GatewayTemplatesService,
    private readonly settings: CompanySettingsService,
  ) {}

  /** Null for a campaign that sends no template, or a template of a category Meta does not price. */
  async estimate(campaign: Campaign): Promise<EstimatedCost | null> {
    if (!campaign.template) {
      return null;
    }
    // The campaign is saved: an estimate Meta cannot be asked for is none, never an error.
    const template = await this.templates
      .find(
        campaign.companyId,
        campaign.gatewayConfigId,
        campaign.template.name,
        campaign.template.language,
      )
      .catch(() => null);
    const category = template ? pricedCategoryOf(template.category.toLowerCase()) : null;
    if (!category) {
      return null;
    }
    const prices = (await this.settings.get(campaign.companyId)).messagePrices;
    return {
      currency: 'USD',
      category,
      messages: campaign.totalContacts,
      amount: estimatedCostOf(campaign.totalContacts, category, prices),
    };
  }
}
