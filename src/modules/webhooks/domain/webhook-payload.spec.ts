import { webhookBody, webhookMessageId } from './webhook-payload';

describe('webhook body', () => {
  it('writes the fields in the order of docs/API-RULES.md §9, whatever order jsonb gave them in', () => {
    const fromJsonb = {
      event: 'campaign.completed',
      stats: {
        sent: 3,
        total: 4,
        failed: 1,
        pending: 0,
        duration: '00:01:02',
        progressPercentage: 100,
      },
      campaignId: 7,
      companyId: 2,
      timestamp: '2026-11-22T12:00:00.000Z',
    };
    expect(webhookBody(fromJsonb)).toBe(
      '{"event":"campaign.completed","campaignId":7,"companyId":2,"timestamp":"2026-11-22T12:00:00.000Z",' +
        '"stats":{"total":4,"sent":3,"failed":1,"pending":0,"progressPercentage":100,"duration":"00:01:02"}}',
    );
  });

  it('keeps extra fields (milestone, reason) after the common ones', () => {
    const body = webhookBody({ reason: 'x', milestone: 10, event: 'campaign.progress', stats: {} });
    expect(Object.keys(JSON.parse(body) as object)).toEqual([
      'event',
      'stats',
      'milestone',
      'reason',
    ]);
  });

  it('names each event once, the same for every attempt', () => {
    expect(webhookMessageId('42')).toBe('evt_42');
  });
});
