import { Injectable } from '@nestjs/common';
import type { Transaction } from '../../../common/persistence/transaction';
import type { SentContact } from '../domain/sent-contact';
import { storedRecordOf } from '../domain/stored-record';
import { systemDatabase } from '../domain/system-database';
import { SystemContactsRepository } from '../infrastructure/system-contacts.repository';
import { UserDatabasesRepository } from '../infrastructure/user-databases.repository';

export type { SentContact };

/**
 * Keeps the SYSTEM database "Contatos de campanhas" (docs/API-RULES.md §6) up to date from
 * batches of sent contacts: one record per phone, holding the latest campaign that reached it.
 */
@Injectable()
export class SystemContactsRecorder {
  /** The SYSTEM database of a company never changes id (it cannot be deleted). */
  private readonly databaseIds = new Map<number, number>();

  constructor(
    private readonly databases: UserDatabasesRepository,
    private readonly contacts: SystemContactsRepository,
  ) {}

  /** Upserts the batch within `tx`, one statement per company. */
  async recordSent(tx: Transaction, sent: readonly SentContact[]): Promise<void> {
    for (const [companyId, contacts] of byCompany(sent)) {
      const databaseId = await this.databaseIdOf(tx, companyId);
      const { columns } = systemDatabase(companyId, new Date());
      // Phone order: two batches upserting the same phones lock them in the same order.
      const latest = latestPerPhone(contacts).sort((a, b) => (a.phone < b.phone ? -1 : 1));
      const records = latest.map((contact) => {
        const trimmed = contact.name.trim();
        return {
          record: storedRecordOf(columns, {
            phone: contact.phone,
            name: trimmed === '' ? null : trimmed,
            last_campaign_id: contact.campaignId,
            last_sent_at: contact.sentAt.toISOString(),
          }),
          at: contact.sentAt,
        };
      });
      const inserted = await this.contacts.upsertMany(tx, { databaseId, companyId }, records);
      if (inserted > 0) {
        await this.contacts.countNewRecords(tx, databaseId, inserted);
      }
    }
  }

  private async databaseIdOf(tx: Transaction, companyId: number): Promise<number> {
    const known = this.databaseIds.get(companyId);
    if (known !== undefined) {
      return known;
    }
    const { id, created } = await this.databases.ensureSystemDatabase(
      companyId,
      systemDatabase(companyId, new Date()),
      tx,
    );
    // A database created in this transaction exists only if the transaction commits.
    if (!created) {
      this.databaseIds.set(companyId, id);
    }
    return id;
  }
}

function byCompany(sent: readonly SentContact[]): Map<number, SentContact[]> {
  const groups = new Map<number, SentContact[]>();
  for (const contact of sent) {
    const group = groups.get(contact.companyId);
    if (group) {
      group.push(contact);
    } else {
      groups.set(contact.companyId, [contact]);
    }
  }
  return groups;
}

/** One upsert may touch a row once: of several sends to one phone, the latest wins. */
export function latestPerPhone(contacts: readonly SentContact[]): SentContact[] {
  const latest = new Map<string, SentContact>();
  for (const contact of contacts) {
    const known = latest.get(contact.phone);
    if (!known || known.sentAt.getTime() <= contact.sentAt.getTime()) {
      latest.set(contact.phone, contact);
    }
  }
  return [...latest.values()];
}
