import { latestPerPhone, SentContact } from './system-contacts.recorder';

const sent = (phone: string, campaignId: number, at: string): SentContact => ({
  companyId: 1,
  campaignId,
  phone,
  name: `Contato ${campaignId}`,
  sentAt: new Date(at),
});

describe('latestPerPhone', () => {
  it('keeps, of several sends to one phone, the latest one, in any input order', () => {
    const contacts = [
      sent('5511900000001', 2, '2026-05-02T10:00:00Z'),
      sent('5511900000002', 1, '2026-05-01T10:00:00Z'),
      sent('5511900000001', 1, '2026-05-01T10:00:00Z'),
      sent('5511900000001', 3, '2026-05-03T10:00:00Z'),
    ];
    expect(
      latestPerPhone(contacts)
        .map((c) => [c.phone, c.campaignId])
        .sort(),
    ).toEqual([
      ['5511900000001', 3],
      ['5511900000002', 1],
    ]);
  });

  it('answers nothing for an empty batch', () => {
    expect(latestPerPhone([])).toEqual([]);
  });
});
