import {
  DeliveringCampaign,
  longPauseFollows,
  milestoneCount,
  pauseAfterDelivery,
} from './delivery-rules';

const campaign: DeliveringCampaign = {
  totalContacts: 100,
  sentContacts: 0,
  failedContacts: 0,
  progressStep: 0,
  longPauseEvery: null,
};
const pauses = { pauseSeconds: 2.5, longPauseSeconds: 90 };

describe('longPauseFollows', () => {
  it.each([
    { longPauseEvery: null, sentContacts: 9, follows: false },
    { longPauseEvery: 10, sentContacts: 8, follows: false },
    { longPauseEvery: 10, sentContacts: 9, follows: true },
    { longPauseEvery: 10, sentContacts: 10, follows: false },
    { longPauseEvery: 10, sentContacts: 19, follows: true },
    { longPauseEvery: 1, sentContacts: 0, follows: true },
  ])('every $longPauseEvery, $sentContacts sent before: $follows', (row) => {
    expect(longPauseFollows({ ...campaign, ...row })).toBe(row.follows);
  });
});

describe('pauseAfterDelivery', () => {
  it('takes the long pause, saying so, when it is due', () => {
    expect(pauseAfterDelivery({ ...campaign, longPauseEvery: 5, sentContacts: 4 }, pauses)).toEqual(
      {
        pauseSeconds: 90,
        waitingReason: 'LONG_PAUSE',
      },
    );
  });

  it("takes the campaign's own pause otherwise", () => {
    expect(pauseAfterDelivery({ ...campaign, longPauseEvery: 5, sentContacts: 3 }, pauses)).toEqual(
      {
        pauseSeconds: 2.5,
        waitingReason: null,
      },
    );
  });
});

describe('milestoneCount', () => {
  it.each([
    { totalContacts: 100, progressStep: 0, count: 10 },
    { totalContacts: 100, progressStep: 3, count: 40 },
    { totalContacts: 100, progressStep: 9, count: 100 },
    { totalContacts: 7, progressStep: 0, count: 1 },
    { totalContacts: 7, progressStep: 4, count: 4 },
    { totalContacts: 25, progressStep: 2, count: 8 },
    { totalContacts: 3, progressStep: 10, count: 3 },
    { totalContacts: 0, progressStep: 0, count: 0 },
  ])('$totalContacts contacts, step $progressStep written: due at $count', (row) => {
    expect(milestoneCount({ ...campaign, ...row })).toBe(row.count);
  });
});
