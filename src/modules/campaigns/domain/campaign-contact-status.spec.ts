import {
  CAMPAIGN_CONTACT_STATUSES,
  CAMPAIGN_CONTACT_TRANSITIONS,
  CampaignContactAction,
  contactStatusesAllowing,
  publicContactStatus,
} from './campaign-contact-status';

const ACTIONS = Object.keys(CAMPAIGN_CONTACT_TRANSITIONS) as CampaignContactAction[];

/** Every status an action can move `from` to. */
function successorsOf(from: string): string[] {
  return ACTIONS.flatMap((action) => {
    const to = (CAMPAIGN_CONTACT_TRANSITIONS[action] as Record<string, string | undefined>)[from];
    return to ? [to] : [];
  });
}

describe('campaign contact transitions', () => {
  it.each(ACTIONS)('lets %s start exactly from the statuses its row names', (action) => {
    const from = CAMPAIGN_CONTACT_STATUSES.filter((s) => CAMPAIGN_CONTACT_TRANSITIONS[action][s]);
    expect(contactStatusesAllowing(action)).toEqual(from);
  });

  it('moves a sent contact only when WhatsApp refused its message, never back to the queue', () => {
    expect(successorsOf('SENT')).toEqual(['FAILED']);
    expect(CAMPAIGN_CONTACT_TRANSITIONS.refuse).toEqual({ SENT: 'FAILED' });
  });

  it('settles an uncertain contact only as sent or failed, never back in the queue', () => {
    expect(successorsOf('UNCERTAIN').sort()).toEqual(['FAILED', 'SENT']);
  });

  it('returns a failed contact to the queue only through a retry, or to SENT when it arrived after all', () => {
    expect(CAMPAIGN_CONTACT_TRANSITIONS.retry).toEqual({ FAILED: 'PENDING' });
    expect(CAMPAIGN_CONTACT_TRANSITIONS.arrive).toEqual({ FAILED: 'SENT' });
    expect(successorsOf('FAILED').sort()).toEqual(['PENDING', 'SENT']);
  });

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
