import { normalizePhone } from '../../../common/phone/phone-number';
import { ColumnDefinition, defineColumns } from './column';
import { StoredRecord, storedRecordOf } from './stored-record';
import type { SyncSummary } from './user-database.entity';

/** What the `type` column of a synchronized record says it came from. */
export type SyncEntryKind = 'contact' | 'unsaved' | 'group' | 'group_member';

/** One entry read from the gateway: a contact row, an unsaved chat, a group or a group member. */
export interface SyncEntry {
  kind: SyncEntryKind;
  jid: string;
  name: string | null;
  /** A phone JID given beside a LID (group participants' phoneNumber). */
  phoneJid?: string | null;
}

export interface SyncOptions {
  includeGroups: boolean;
  includeContactsWithoutPhone: boolean;
  deduplicate: boolean;
}

/** Columns of every GATEWAY database. */
export const SYNC_COLUMNS: readonly ColumnDefinition[] = defineColumns([
  { originalName: 'phone', displayName: 'Telefone', dataType: 'PHONE', isPhoneColumn: true },
  { originalName: 'name', displayName: 'Nome', dataType: 'TEXT', isPhoneColumn: false },
  { originalName: 'jid', displayName: 'JID', dataType: 'TEXT', isPhoneColumn: false },
  { originalName: 'type', displayName: 'Tipo', dataType: 'TEXT', isPhoneColumn: false },
]);

/** A summary before the first entry. */
export function emptySyncSummary(totalFetched: number): SyncSummary {
  return { totalFetched, processed: 0, duplicatesSkipped: 0, filteredByPhone: 0 };
}

/**
 * docs/API-RULES.md §6. Every entry counts in totalFetched and ends in exactly one of
 * processed, duplicatesSkipped or filteredByPhone:
 * - a group becomes a record without phone (type group, name = subject) with includeGroups,
 *   otherwise it is filtered (a group itself has no phone);
 * - a person's phone comes from an @s.whatsapp.net JID, or from the phone JID given beside a
 *   LID; without one, the entry is kept without phone only with includeContactsWithoutPhone;
 * - with deduplicate, a repeated phone (or, without phone, a repeated JID) is skipped, the
 *   first occurrence kept.
 * The records come one at a time, counted into `summary` as they go.
 */
export function* gatewaySyncRecords(
  entries: readonly SyncEntry[],
  options: SyncOptions,
  defaultCountryCode: number,
  summary: SyncSummary,
): Generator<StoredRecord> {
  const seen = new Set<string>();
  for (const entry of entries) {
    const phone = entry.kind === 'group' ? null : phoneOf(entry, defaultCountryCode);
    const keep =
      phone !== null ||
      (entry.kind === 'group' ? options.includeGroups : options.includeContactsWithoutPhone);
    if (!keep) {
      summary.filteredByPhone += 1;
      continue;
    }
    const key = phone ?? `jid:${entry.jid}`;
    if (options.deduplicate && seen.has(key)) {
      summary.duplicatesSkipped += 1;
      continue;
    }
    seen.add(key);
    summary.processed += 1;
    yield storedRecordOf(SYNC_COLUMNS, {
      phone,
      name: entry.name?.trim().slice(0, 1000) || null,
      jid: entry.jid,
      type: entry.kind,
    });
  }
}

export function isGroupJid(jid: string): boolean {
  return jid.endsWith('@g.us');
}

/** Digits of a phone JID (5511987654321@s.whatsapp.net, with or without a :device suffix), normalized. */
function phoneOf(entry: SyncEntry, defaultCountryCode: number): string | null {
  for (const jid of [entry.jid, entry.phoneJid]) {
    if (jid && /@s\.whatsapp\.net$/.test(jid)) {
      const digits = jid.split(/[@:]/)[0].replace(/\D/g, '');
      const phone = digits ? normalizePhone(`+${digits}`, defaultCountryCode) : null;
      if (phone) {
        return phone;
      }
    }
  }
  return null;
}
