import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import { managerOf } from '../../../database/transactions';
import { DataSource } from 'typeorm';
import {
  firstMatchingValues,
  SelectionCounts,
  SelectionRequest,
  selectRecipients,
} from './automation-selection';

/** The set-based selection of a run's recipients (SQL over the records: automation-selection.ts). */
@Injectable()
export class RecipientSelection {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Selects the run's recipients and inserts them as its campaign's contacts, in one
   * statement: records matching every filter (AND), one per phone, minus the active block
   * list, minus what the de-duplication strategy excludes, cut at the send limit.
   */
  select(tx: Transaction, request: SelectionRequest): Promise<SelectionCounts> {
    return selectRecipients(managerOf(tx), request);
  }

  /** The first matching record's values, for test-send's rendering. */
  firstMatchingValues(
    request: Pick<SelectionRequest, 'companyId' | 'databaseId' | 'filters' | 'columns' | 'today'>,
  ): Promise<Record<string, unknown> | null> {
    return firstMatchingValues(this.dataSource.manager, request);
  }
}
