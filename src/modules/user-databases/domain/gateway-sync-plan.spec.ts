import { emptySyncSummary, gatewaySyncRecords, SyncEntry, SyncOptions } from './gateway-sync-plan';

/** Every record and the summary, as the sync writes and records them. */
function planGatewaySync(entries: SyncEntry[], options: SyncOptions, defaultCountryCode: number) {
  const summary = emptySyncSummary(entries.length);
  const records = [...gatewaySyncRecords(entries, options, defaultCountryCode, summary)];
  return { records, summary };
}

const entries: SyncEntry[] = [
  { kind: 'contact', jid: '5511987654321@s.whatsapp.net', name: 'Maria' },
  { kind: 'contact', jid: '5511987654321:12@s.whatsapp.net', name: 'Maria (outro aparelho)' },
  { kind: 'contact', jid: '201234567890123@lid', name: 'Sem número' },
  { kind: 'group', jid: '120363012345678901@g.us', name: 'VIP' },
  {
    kind: 'group_member',
    jid: '208765432109876@lid',
    phoneJid: '5521998877665@s.whatsapp.net',
    name: null,
  },
  { kind: 'unsaved', jid: '5521998877665@s.whatsapp.net', name: 'Joao' },
];

const options = (overrides: Partial<SyncOptions> = {}): SyncOptions => ({
  includeGroups: false,
  includeContactsWithoutPhone: false,
  deduplicate: true,
  ...overrides,
});

describe('planGatewaySync', () => {
  it('keeps people with a phone once, filters entries without one, and sums up every entry', () => {
    const plan = planGatewaySync(entries, options(), 55);
    expect(plan.records.map((r) => [r.phone, r.values.type])).toEqual([
      ['5511987654321', 'contact'],
      ['5521998877665', 'group_member'],
    ]);
    expect(plan.summary).toEqual({
      totalFetched: 6,
      processed: 2,
      duplicatesSkipped: 2,
      filteredByPhone: 2,
    });
  });

  it('keeps groups and phoneless contacts when asked, keyed by JID', () => {
    const plan = planGatewaySync(
      entries,
      options({ includeGroups: true, includeContactsWithoutPhone: true }),
      55,
    );
    expect(plan.records.map((r) => [r.phone, r.values.jid, r.values.type])).toEqual([
      ['5511987654321', '5511987654321@s.whatsapp.net', 'contact'],
      [null, '201234567890123@lid', 'contact'],
      [null, '120363012345678901@g.us', 'group'],
      ['5521998877665', '208765432109876@lid', 'group_member'],
    ]);
    expect(plan.summary).toEqual({
      totalFetched: 6,
      processed: 4,
      duplicatesSkipped: 2,
      filteredByPhone: 0,
    });
  });

  it('keeps repeats without deduplicate', () => {
    const plan = planGatewaySync(entries, options({ deduplicate: false }), 55);
    expect(plan.summary).toEqual({
      totalFetched: 6,
      processed: 4,
      duplicatesSkipped: 0,
      filteredByPhone: 2,
    });
  });
});
