import type { CampaignStatus } from './campaign-status';
import { Campaign } from './campaign.entity';

const at = (time: string): Date => new Date(`2026-11-30T${time}Z`);

function campaign(status: CampaignStatus, nextSendAt: Date | null, pauseEndsAt?: Date): Campaign {
  return Object.assign(new Campaign(), { status, nextSendAt, pauseEndsAt });
}

describe('when a campaign may send again', () => {
  it.each<[string, Campaign, Date | null]>([
    [
      'its pause after the instance’s last message, when it ends later',
      campaign('ACTIVE', at('12:00:00'), at('12:00:02')),
      at('12:00:02'),
    ],
    [
      'its own wait (window, day, long pause), when it ends later',
      campaign('ACTIVE', at('20:00:00'), at('12:00:02')),
      at('20:00:00'),
    ],
    [
      'its own wait, when its instance never sent',
      campaign('ACTIVE', at('12:00:00')),
      at('12:00:00'),
    ],
    ['never, while it is not ACTIVE', campaign('PAUSED', at('12:00:00'), at('12:00:02')), null],
  ])('%s', (_name, given, expected) => {
    expect(given.sendsNoEarlierThan()).toEqual(expected);
  });
});
