import { CampaignDefinition } from './campaign-draft';
import { CAMPAIGN_STATUSES, nextCampaignStatus } from './campaign-status';
import { Campaign } from './campaign.entity';
import { CampaignDraftMoveNotAllowedError } from './campaign.errors';

const NOW = new Date('2026-11-30T12:00:00Z');
const LATER = new Date('2026-12-01T09:00:00Z');

function definition(overrides: Partial<CampaignDefinition> = {}): CampaignDefinition {
  return {
    name: 'Oferta',
    description: null,
    isTest: false,
    type: 'TEXT',
    messageContent: 'Olá',
    mediaUrl: null,
    mediaType: null,
    fileName: null,
    caption: null,
    pollData: null,
    template: null,
    scheduledFor: null,
    gateway: { id: 3, name: 'loja', url: 'https://gw.example.com', instance: 'loja' },
    databaseConfigId: null,
    minInterval: 5,
    maxInterval: 12,
    notificationPhone: null,
    sendingWindow: null,
    longPause: null,
    ...overrides,
  };
}

function created(isDraft: boolean, overrides: Partial<CampaignDefinition> = {}): Campaign {
  return Campaign.create({ ...definition(overrides), companyId: 1, isDraft }, NOW);
}

describe('a draft: edit and launch', () => {
  it('edits only what was not sent yet: DRAFT and SCHEDULED, keeping the status', () => {
    const editable = CAMPAIGN_STATUSES.filter((s) => nextCampaignStatus(s, 'edit'));
    expect(editable).toEqual(['DRAFT', 'SCHEDULED']);
    for (const status of editable) {
      expect(nextCampaignStatus(status, 'edit')).toBe(status);
    }
  });

  it('launches only a DRAFT: to ACTIVE without a time, to SCHEDULED with one', () => {
    expect(CAMPAIGN_STATUSES.filter((s) => nextCampaignStatus(s, 'launch'))).toEqual(['DRAFT']);
    expect(CAMPAIGN_STATUSES.filter((s) => nextCampaignStatus(s, 'schedule'))).toEqual(['DRAFT']);
    expect(nextCampaignStatus('DRAFT', 'launch')).toBe('ACTIVE');
    expect(nextCampaignStatus('DRAFT', 'schedule')).toBe('SCHEDULED');
  });

  it('counts a campaign as launched at its creation unless it is a draft', () => {
    expect(created(true)).toMatchObject({ status: 'DRAFT', launchedAt: null, startedAt: null });
    expect(created(false)).toMatchObject({ status: 'ACTIVE', launchedAt: NOW, startedAt: NOW });
    expect(created(false, { scheduledFor: LATER })).toMatchObject({
      status: 'SCHEDULED',
      launchedAt: NOW,
      startedAt: null,
      nextSendAt: null,
    });
  });

  it('launches a draft as a creation would have made it, counting it as launched then', () => {
    const draft = created(true);
    const launchedAt = new Date(NOW.getTime() + 60_000);
    draft.launch(launchedAt);
    expect(draft).toMatchObject({
      status: 'ACTIVE',
      launchedAt,
      startedAt: launchedAt,
      nextSendAt: launchedAt,
    });
    const scheduled = created(true, { scheduledFor: LATER });
    scheduled.launch(launchedAt);
    expect(scheduled).toMatchObject({ status: 'SCHEDULED', launchedAt, startedAt: null });
  });

  it.each(['SCHEDULED', 'ACTIVE', 'PAUSED', 'COMPLETED', 'CANCELLED', 'FAILED'] as const)(
    'refuses to launch a %s campaign with a conflict, changing nothing',
    (status) => {
      const campaign = created(false);
      campaign.status = status;
      const before = { ...campaign };
      expect(() => campaign.launch(LATER)).toThrow(CampaignDraftMoveNotAllowedError);
      expect({ ...campaign }).toEqual(before);
    },
  );

  it('redefines a draft or a scheduled campaign, and refuses any other with a conflict', () => {
    const draft = created(true);
    draft.redefine(definition({ name: 'Nova', messageContent: 'Oi', scheduledFor: LATER }), LATER);
    expect(draft).toMatchObject({
      status: 'DRAFT',
      name: 'Nova',
      messageContent: 'Oi',
      scheduledFor: LATER,
      updatedAt: LATER,
    });
    const active = created(false);
    expect(() => active.redefine(definition({ name: 'Nova' }), LATER)).toThrow(
      CampaignDraftMoveNotAllowedError,
    );
    expect(active.name).toBe('Oferta');
  });
});
