import { CAMPAIGN_STATUSES, CampaignStatus, nextCampaignStatus } from './campaign-status';
import { Campaign, RETRY_WINDOW_DAYS } from './campaign.entity';

const DAY_MS = 24 * 60 * 60 * 1000;
const NOW = new Date('2026-11-30T12:00:00Z');

function ended(status: CampaignStatus, daysAgo: number): Campaign {
  const campaign = new Campaign();
  Object.assign(campaign, {
    status,
    completedAt: new Date(NOW.getTime() - daysAgo * DAY_MS),
    failureReason: status === 'FAILED' ? 'A instância do gateway não existe' : null,
    pausedAt: null,
    pauseReason: null,
    internalErrorStreak: 2,
    sendFailureStreak: 4,
    watchedSends: 50,
    watchedRefusals: 12,
    waitingReason: null,
    nextSendAt: null,
    updatedAt: new Date(0),
  });
  return campaign;
}

describe('retrying a campaign’s failed contacts', () => {
  it('takes only COMPLETED and FAILED back to ACTIVE', () => {
    const allowed = CAMPAIGN_STATUSES.filter((s) => nextCampaignStatus(s, 'retry'));
    expect(allowed).toEqual(['COMPLETED', 'FAILED']);
    expect(nextCampaignStatus('COMPLETED', 'retry')).toBe('ACTIVE');
    expect(nextCampaignStatus('FAILED', 'retry')).toBe('ACTIVE');
  });

  it.each(['COMPLETED', 'FAILED'] as const)(
    'makes a %s campaign ACTIVE and due now, its end and failure cleared',
    (status) => {
      const campaign = ended(status, 1);
      campaign.retry(NOW);
      expect(campaign).toMatchObject({
        status: 'ACTIVE',
        completedAt: null,
        failureReason: null,
        internalErrorStreak: 0,
        // The ban signals are watched anew over the retried sends.
        sendFailureStreak: 0,
        watchedSends: 0,
        watchedRefusals: 0,
        nextSendAt: NOW,
        updatedAt: NOW,
      });
    },
  );

  it.each(['DRAFT', 'SCHEDULED', 'ACTIVE', 'PAUSED', 'CANCELLED'] as const)(
    'refuses a %s campaign with a 409 that names the status, changing nothing',
    (status) => {
      const campaign = ended(status, 1);
      expect(() => campaign.retry(NOW)).toThrow(
        expect.objectContaining({
          code: 'CAMPAIGN.RETRY_NOT_ALLOWED',
          kind: 'conflict',
          message: expect.stringContaining(`status ${status}`),
        }),
      );
      expect(campaign.status).toBe(status);
    },
  );

  it(`allows ${RETRY_WINDOW_DAYS} days after the end, and not a millisecond more`, () => {
    expect(() => ended('COMPLETED', RETRY_WINDOW_DAYS).retry(NOW)).not.toThrow();
    const late = ended('COMPLETED', RETRY_WINDOW_DAYS + 1 / DAY_MS);
    expect(() => late.retry(NOW)).toThrow(
      expect.objectContaining({ code: 'CAMPAIGN.RETRY_WINDOW_PASSED', kind: 'conflict' }),
    );
    expect(late.status).toBe('COMPLETED');
  });

  it('refuses a campaign without an end time', () => {
    const campaign = ended('FAILED', 0);
    campaign.completedAt = null;
    expect(() => campaign.checkRetry(NOW)).toThrow(
      expect.objectContaining({ code: 'CAMPAIGN.RETRY_WINDOW_PASSED' }),
    );
  });
});
