import {
  CAMPAIGN_CONTACT_STATUSES,
  CAMPAIGN_CONTACT_TRANSITIONS,
  CampaignContactAction,
  contactStatusesAllowing,
  publicContactStatus,
} from './campaign-contact-status';

const ALLOWED: Record<CampaignContactAction, Record<string, string>> = {
  take: { PENDING: 'SENDING' },
  deliver: { SENDING: 'SENT', UNCERTAIN: 'SENT' },
  fail: { SENDING: 'FAILED' },
  requeue: { SENDING: 'PENDING' },
  doubt: { SENDING: 'UNCERTAIN' },
  writeOff: { UNCERTAIN: 'FAILED' },
  retry: { FAILED: 'PENDING' },
};

describe('campaign contact transitions', () => {
  for (const action of Object.keys(ALLOWED) as CampaignContactAction[]) {
    for (const from of CAMPAIGN_CONTACT_STATUSES) {
      const expected = ALLOWED[action][from];
      it(`${action} from ${from} ${expected ? `→ ${expected}` : 'is refused'}`, () => {
        expect(CAMPAIGN_CONTACT_TRANSITIONS[action][from]).toBe(expected);
        expect(contactStatusesAllowing(action).includes(from)).toBe(expected !== undefined);
      });
    }
  }

  it('never lets a sent or uncertain contact be taken for another attempt', () => {
    expect(contactStatusesAllowing('take')).toEqual(['PENDING']);
    expect(contactStatusesAllowing('requeue')).not.toContain('UNCERTAIN');
  });

  it('shows contacts in flight or under reconciliation as PENDING', () => {
    expect(CAMPAIGN_CONTACT_STATUSES.map(publicContactStatus)).toEqual([
      'PENDING',
      'PENDING',
      'PENDING',
      'SENT',
      'FAILED',
    ]);
  });
});
