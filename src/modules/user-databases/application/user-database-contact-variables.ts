import { Injectable } from '@nestjs/common';
import { ContactVariablesProvider } from '../../campaigns/application/contact-variables.provider';
import { DatabaseNotUsableError } from '../domain/user-database.errors';
import { RecordsRepository } from '../infrastructure/records.repository';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';

/**
 * {columnName} variables of campaigns with databaseConfigId (docs/API-RULES.md §4): the record
 * of that database whose phone column equals the contact's number.
 */
@Injectable()
export class UserDatabaseContactVariables extends ContactVariablesProvider {
  constructor(
    private readonly databases: UserDatabasesRepository,
    private readonly records: RecordsRepository,
  ) {
    super();
  }

  /** 404 missing, 403 another company's, 400 inactive or without a phone column. */
  async assertUsable(companyId: number, databaseId: number): Promise<void> {
    const database = await this.databases.findOwnedOrFail(companyId, databaseId);
    if (database.status !== 'ACTIVE') {
      throw new DatabaseNotUsableError(`A base de dados "${database.name}" não está ativa`);
    }
    if (!database.phoneColumn) {
      throw new DatabaseNotUsableError(
        `A base de dados "${database.name}" não tem coluna de telefone`,
      );
    }
  }

  /** Every column as text ('' where the record has no value); empty when no record matches. */
  async valuesFor(
    companyId: number,
    databaseId: number,
    phoneNumber: string,
  ): Promise<Record<string, string>> {
    const found = await this.records.valuesByPhone(companyId, databaseId, phoneNumber);
    if (!found?.values) {
      return {};
    }
    const values = found.values;
    return Object.fromEntries(
      found.columns.map((column) => {
        const value = values[column.columnName];
        return [column.columnName, value === undefined || value === null ? '' : String(value)];
      }),
    );
  }
}
