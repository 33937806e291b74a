import type { CampaignStatus } from './campaign-status';

/** What the campaign list is narrowed by (docs/API-RULES.md, "Reports and the campaign list"). */
export interface CampaignListFilter {
  status?: CampaignStatus;
  /** A part of the name, without regard to case or accents. */
  search?: string;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
  gatewayConfigId?: number;
  page: number;
  size: number;
}
