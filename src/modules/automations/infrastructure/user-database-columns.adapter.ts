import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { assertOwned } from '../../../common/tenancy/owned-resource';
import {
  AutomationDatabases,
  FilterableColumn,
} from '../application/ports/automation-databases.port';

const USER_DATABASE_KIND = {
  code: 'USER_DATABASE',
  notFoundMessage: 'Base de dados não encontrada',
};

/** Reads a user database's column definitions, with the same ownership rule as every resource. */
@Injectable()
export class UserDatabaseColumnsAdapter extends AutomationDatabases {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async columnsOf(companyId: number, databaseId: number): Promise<FilterableColumn[]> {
    const rows: Array<{ id: number; companyId: number; columns: FilterableColumn[] }> =
      await this.dataSource.query(
        `SELECT id, company_id AS "companyId", columns FROM user_databases WHERE id = $1`,
        [databaseId],
      );
    const database = assertOwned(rows[0] ?? null, companyId, USER_DATABASE_KIND);
    return database.columns.map((c) => ({
      columnName: c.columnName,
      dataType: c.dataType,
      isPhoneColumn: c.isPhoneColumn,
      isNameColumn: c.isNameColumn,
    }));
  }
}
