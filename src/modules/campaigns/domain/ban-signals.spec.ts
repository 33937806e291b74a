import { DEFAULT_AUTO_PAUSE } from '../../../common/messaging/auto-pause';
import { banSignalOf, WatchedSends } from './ban-signals';

const quiet: WatchedSends = {
  sendFailureStreak: 0,
  watchedSends: 0,
  watchedRefusals: 0,
  totalContacts: 1000,
};

describe('banSignalOf', () => {
  it('pauses at the failures in a row, not one before', () => {
    expect(banSignalOf({ ...quiet, sendFailureStreak: 4 }, DEFAULT_AUTO_PAUSE)).toBeNull();
    expect(banSignalOf({ ...quiet, sendFailureStreak: 5 }, DEFAULT_AUTO_PAUSE)).toMatch(
      /^5 envios seguidos falharam/,
    );
  });

  it('pauses once more than the share of the first sends were refused, as soon as it is certain', () => {
    // 30 % of 50 is 15: the 16th refusal decides, even among the first 16 sends.
    const watched = { ...quiet, watchedSends: 16 };
    expect(banSignalOf({ ...watched, watchedRefusals: 15 }, DEFAULT_AUTO_PAUSE)).toBeNull();
    expect(banSignalOf({ ...watched, watchedRefusals: 16 }, DEFAULT_AUTO_PAUSE)).toMatch(
      /mais de 30% dos primeiros 50 envios/,
    );
  });

  it('judges a campaign smaller than the sample over all its contacts', () => {
    const small = { ...quiet, totalContacts: 20, watchedSends: 10 };
    expect(banSignalOf({ ...small, watchedRefusals: 6 }, DEFAULT_AUTO_PAUSE)).toBeNull();
    expect(banSignalOf({ ...small, watchedRefusals: 7 }, DEFAULT_AUTO_PAUSE)).toMatch(
      /dos primeiros 20 envios/,
    );
  });

  it('does not judge a tiny campaign by its share of refusals', () => {
    const tiny = { ...quiet, totalContacts: 3, watchedSends: 3, watchedRefusals: 3 };
    expect(banSignalOf(tiny, DEFAULT_AUTO_PAUSE)).toBeNull();
  });

  it('follows the company’s thresholds', () => {
    const strict = { failuresInRow: 2, refusedPercent: 10, refusedSample: 10 };
    expect(banSignalOf({ ...quiet, sendFailureStreak: 2 }, strict)).not.toBeNull();
    expect(banSignalOf({ ...quiet, watchedRefusals: 2 }, strict)).toMatch(/mais de 10%/);
    expect(banSignalOf({ ...quiet, watchedRefusals: 1 }, strict)).toBeNull();
  });
});
