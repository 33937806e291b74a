import {
  CONTACT_EXPORT_HEADERS,
  contactExportCells,
  neutralizeFormula,
  type CampaignContactExportRow,
} from './campaign-contact-export';
import { contactSearchOf } from './campaign-contact-filters';
import { likeContaining } from '../../../common/persistence/like-pattern';

const ZONE = 'America/Sao_Paulo';

function row(overrides: Partial<CampaignContactExportRow> = {}): CampaignContactExportRow {
  return {
    id: '1',
    phoneNumber: '5511987654321',
    name: 'Maria',
    status: 'SENT',
    sentAt: new Date('2026-03-01T12:00:05Z'),
    failedAt: null,
    failureReason: null,
    failureKind: null,
    deliveredAt: new Date('2026-03-01T12:01:00Z'),
    readAt: null,
    playedAt: null,
    repliedAt: null,
    senderInstance: 'loja',
    optedOut: false,
    ...overrides,
  };
}

describe('a campaign contact as export cells', () => {
  it('writes every column as text, dates day first in the zone', () => {
    expect(contactExportCells(row({ optedOut: true }), ZONE)).toEqual([
      '5511987654321',
      'Maria',
      'SENT',
      '',
      '',
      'loja',
      '01/03/2026 09:00:05',
      '01/03/2026 09:01:00',
      '',
      '',
      'sim',
    ]);
    expect(CONTACT_EXPORT_HEADERS).toHaveLength(11);
  });

  it('shows in-flight contacts as PENDING and a failure only when FAILED', () => {
    expect(contactExportCells(row({ status: 'UNCERTAIN' }), ZONE).slice(2, 7)).toEqual([
      'PENDING',
      '',
      '',
      'loja',
      '',
    ]);
    const failed = row({ status: 'FAILED', failureKind: null, failureReason: 'x' });
    expect(contactExportCells(failed, ZONE).slice(2, 5)).toEqual(['FAILED', 'unrecorded', 'x']);
  });

  it.each([
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ['+cmd|calc', `'+cmd|calc`],
    ['-1', `'-1`],
    ['@SUM(A1)', `'@SUM(A1)`],
    ['\t=1', `'\t=1`],
    ['\r=1', `'\r=1`],
    ['José', 'José'],
    ['a=1', 'a=1'],
  ])('neutralizes %j as %j', (value, expected) => {
    expect(neutralizeFormula(value)).toBe(expected);
    expect(contactExportCells(row({ name: value }), ZONE)[1]).toBe(expected);
  });
});

describe('a contacts search', () => {
  it.each([
    ['  9876 ', { phoneDigits: '9876' }],
    ['+55 (11) 98765-4321', { phoneDigits: '5511987654321' }],
    ['JOSÉ', { name: 'JOSÉ' }],
    ['Contato 12', { name: 'Contato 12' }],
    ['--', { name: '--' }],
    ['   ', null],
  ])('reads %j as %j', (search, expected) => {
    expect(contactSearchOf(search)).toEqual(expected);
  });

  it('escapes LIKE wildcards', () => {
    expect(likeContaining('50%_a\\b')).toBe('%50\\%\\_a\\\\b%');
  });
});
