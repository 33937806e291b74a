/**
 * Where {columnName} variables come from when a campaign names a user database
 * (databaseConfigId). The user-databases module provides it.
 */
export abstract class ContactVariablesProvider {
  /** Throws a domain error when the company cannot use that database. */
  abstract assertUsable(companyId: number, databaseId: number): Promise<void>;
  /** The values of the record whose phone column matches; empty when none matches. */
  abstract valuesFor(
    companyId: number,
    databaseId: number,
    phoneNumber: string,
  ): Promise<Record<string, string>>;
}
