import {
  contactSearchOf,
  counterOf,
  type CampaignContactFilters,
  type ContactCounter,
} from './campaign-contact-filters';

describe('which campaign counter holds a contacts total', () => {
  it.each<[string, CampaignContactFilters, ContactCounter | null]>([
    ['no filter', {}, 'total'],
    ['a blank search', { search: contactSearchOf('  ') }, 'total'],
    ['PENDING (in flight too)', { status: 'PENDING' }, 'pending'],
    ['SENT', { status: 'SENT' }, 'sent'],
    ['FAILED', { status: 'FAILED' }, 'failed'],
    ['DELIVERED', { receipt: 'DELIVERED' }, 'delivered'],
    ['READ', { receipt: 'READ' }, 'read'],
    ['REPLIED', { receipt: 'REPLIED' }, 'replied'],
    ['NOT_DELIVERED, which no counter holds', { receipt: 'NOT_DELIVERED' }, null],
    ['a failure kind', { failureKind: 'blocked' }, null],
    ['a status and a receipt', { status: 'SENT', receipt: 'READ' }, null],
    ['a status and a failure kind', { status: 'FAILED', failureKind: 'blocked' }, null],
    ['a name search', { status: 'SENT', search: contactSearchOf('jose') }, null],
    ['a phone search', { receipt: 'READ', search: contactSearchOf('1234') }, null],
  ])('%s', (_, filters, counter) => {
    expect(counterOf(filters)).toBe(counter);
  });
});
