import { completedEvent, progressEvents, startedEvent } from './campaign-events';

const CAMPAIGN = { id: 7, companyId: 3, startedAt: new Date('2026-11-26T12:00:00Z') };
const NOW = new Date('2026-11-26T12:10:00Z');
const COUNTS = { totalContacts: 10, sentContacts: 8, failedContacts: 2 };
const HEARD = { ...COUNTS, deliveredContacts: 7, readContacts: 5, repliedContacts: 3 };

describe('what the campaign events carry of receipts and replies', () => {
  it('puts delivered, read and replied in the stats of progress and completion', () => {
    expect(completedEvent(CAMPAIGN, HEARD, NOW).payload.stats).toEqual({
      total: 10,
      sent: 8,
      failed: 2,
      pending: 0,
      progressPercentage: 100,
      duration: '00:10:00',
      delivered: 7,
      read: 5,
      replied: 3,
    });
    const [progress] = progressEvents(CAMPAIGN, HEARD, 9, 10, NOW);
    expect(progress.payload.stats).toMatchObject({ delivered: 7, read: 5, replied: 3 });
  });

  it('leaves them out where the counts do not carry receipts', () => {
    expect(startedEvent(CAMPAIGN, COUNTS, NOW).payload.stats).toEqual({
      total: 10,
      sent: 8,
      failed: 2,
      pending: 0,
      progressPercentage: 100,
    });
  });
});
