/** A column of a user database, as automations filter on it. */
export interface FilterableColumn {
  columnName: string;
  dataType: string;
  isPhoneColumn: boolean;
  isNameColumn: boolean;
}

/**
 * What automations need from user databases: the columns they may filter on (ownership
 * checked: 404 / 403 as for every resource). Implemented over the user-databases module.
 */
export abstract class AutomationDatabases {
  abstract columnsOf(companyId: number, databaseId: number): Promise<FilterableColumn[]>;
}
