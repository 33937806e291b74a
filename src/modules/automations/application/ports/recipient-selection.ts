import type { EntityManager } from 'typeorm';
import type { AutomationFilter, DedupStrategy } from '../../domain/automation-rules';
import type { FilterableColumn } from './automation-databases.port';

export interface SelectionRequest {
  companyId: number;
  databaseId: number;
  automationId: number;
  campaignId: number;
  filters: AutomationFilter[];
  columns: FilterableColumn[];
  /** The run's date in the schedule's zone, `YYYY-MM-DD`: what TODAY means. */
  today: string;
  applyBlockList: boolean;
  dedupStrategy: DedupStrategy;
  dedupCooldownDays: number | null;
  sendLimit: number | null;
  /**
   * The campaigns module's INSERT of the chosen rows as the campaign's contacts
   * (CampaignRuns.contactsInsertSql): the selection never writes that table itself.
   */
  contactsInsertSql: (source: string, campaignIdParam: string, companyIdParam: string) => string;
}

export interface SelectionCounts {
  matched: number;
  skippedByBlockList: number;
  skippedByDedup: number;
  skippedByLimit: number;
  selected: number;
}

/** The set-based selection of a run's recipients (SQL over the records, in infrastructure). */
export abstract class RecipientSelection {
  /**
   * Selects the run's recipients and inserts them as its campaign's contacts, in one
   * statement: records matching every filter (AND), one per phone, minus the active block
   * list, minus what the de-duplication strategy excludes, cut at the send limit.
   */
  abstract select(manager: EntityManager, request: SelectionRequest): Promise<SelectionCounts>;
  /** The first matching record's values, for test-send's rendering. */
  abstract firstMatchingValues(
    manager: EntityManager,
    request: Pick<SelectionRequest, 'companyId' | 'databaseId' | 'filters' | 'columns' | 'today'>,
  ): Promise<Record<string, unknown> | null>;
}
