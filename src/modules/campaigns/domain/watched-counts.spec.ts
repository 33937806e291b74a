import { watchedCountsOfFailure } from './watched-counts';

describe('watchedCountsOfFailure', () => {
  it.each([
    {
      signal: null,
      before: 0,
      adds: { sendFailureStreak: 0, watchedSends: 0, watchedRefusals: 0 },
    },
    {
      signal: 'failed',
      before: 0,
      adds: { sendFailureStreak: 1, watchedSends: 1, watchedRefusals: 0 },
    },
    {
      signal: 'refused',
      before: 49,
      adds: { sendFailureStreak: 1, watchedSends: 1, watchedRefusals: 1 },
    },
    {
      signal: 'refused',
      before: 50,
      adds: { sendFailureStreak: 1, watchedSends: 1, watchedRefusals: 0 },
    },
  ] as const)('$signal after $before watched sends (sample 50)', ({ signal, before, adds }) => {
    expect(watchedCountsOfFailure(signal, before, 50)).toEqual(adds);
  });
});
