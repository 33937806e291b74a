import { ValidationFailedError } from '../../../common/errors/domain-error';
import {
  creationBounds,
  daysOf,
  emptyFunnel,
  failedByKindOf,
  instantsOf,
  percentOf,
  ratesOf,
  reportDays,
  sendingSpanOf,
  sumFunnels,
} from './campaign-report';

const ZONE = 'America/Sao_Paulo';

describe('campaign report arithmetic', () => {
  it('gives shares in percent with one decimal, 0 without a whole', () => {
    expect(percentOf(1, 3)).toBe(33.3);
    expect(percentOf(2, 3)).toBe(66.7);
    expect(percentOf(5, 0)).toBe(0);
    const funnel = { ...emptyFunnel(), sent: 8, delivered: 6, read: 2, replied: 1, failed: 2 };
    expect(ratesOf(funnel)).toEqual({
      deliveryRate: 75,
      readRate: 25,
      replyRate: 12.5,
      optOutRate: 0,
      failureRate: 20,
    });
  });

  it('names every failure kind, 0 for the missing ones', () => {
    expect(failedByKindOf({ rejected: 2 })).toEqual({
      refused_number: 0,
      rejected: 2,
      retries_exhausted: 0,
      blocked: 0,
      blank_message: 0,
      not_delivered: 0,
      unknown_outcome: 0,
      unrecorded: 0,
      undeliverable: 0,
      reengagement_required: 0,
      marketing_limit: 0,
      outside_window: 0,
    });
  });

  it('adds funnels field by field, failure kinds too', () => {
    const one = { ...emptyFunnel(), total: 3, sent: 2, failed: 1 };
    one.failedByKind.rejected = 1;
    const two = { ...emptyFunnel(), total: 2, sent: 1, read: 1, failed: 1 };
    two.failedByKind = failedByKindOf({ rejected: 1 });
    expect(sumFunnels([one, two])).toMatchObject({
      total: 5,
      sent: 3,
      read: 1,
      failed: 2,
      failedByKind: expect.objectContaining({ rejected: 2 }),
    });
    expect(sumFunnels([])).toEqual(emptyFunnel());
  });

  it('measures the span from the first send to completion, or to the last send before it', () => {
    const first = new Date('2026-11-27T12:00:00Z');
    const last = new Date('2026-11-27T12:30:00Z');
    expect(sendingSpanOf(60, first, last, null)).toEqual({
      durationSeconds: 1800,
      perMinute: 2,
      perHour: 120,
    });
    expect(sendingSpanOf(60, first, last, new Date('2026-11-27T13:00:00Z'))).toEqual({
      durationSeconds: 3600,
      perMinute: 1,
      perHour: 60,
    });
    expect(sendingSpanOf(1, first, first, null)).toEqual({
      durationSeconds: 0,
      perMinute: null,
      perHour: null,
    });
    expect(sendingSpanOf(0, null, null, null).durationSeconds).toBeNull();
  });
});

describe('report days', () => {
  const now = new Date('2026-11-27T02:00:00Z'); // 23:00 on the 26th in São Paulo

  it('defaults to the 30 local days ending today', () => {
    const range = reportDays(undefined, undefined, ZONE, now);
    expect(range.to.toISODate()).toBe('2026-11-26');
    expect(range.from.toISODate()).toBe('2026-10-28');
    expect(daysOf(range.from, range.to)).toHaveLength(30);
  });

  it('covers local midnights as instants', () => {
    const range = reportDays('2026-11-01', '2026-11-02', ZONE, now);
    expect(instantsOf(range.from, range.to)).toEqual({
      start: new Date('2026-11-01T03:00:00Z'),
      end: new Date('2026-11-03T03:00:00Z'),
    });
  });

  it('takes up to 92 days and refuses more, an inverted range and a day that does not exist', () => {
    const widest = reportDays('2026-01-01', '2026-04-02', ZONE, now);
    expect(daysOf(widest.from, widest.to)).toHaveLength(92);
    for (const [from, to] of [
      ['2026-01-01', '2026-04-03'],
      ['2026-03-10', '2026-03-09'],
      ['2026-02-30', undefined],
      ['2026-1-01', undefined],
    ]) {
      expect(() => reportDays(from, to, ZONE, now)).toThrow(ValidationFailedError);
    }
  });

  it('bounds the list’s creation by local days, either side open', () => {
    expect(creationBounds('2026-11-01', '2026-11-01', ZONE)).toEqual({
      createdFrom: new Date('2026-11-01T03:00:00Z'),
      createdBefore: new Date('2026-11-02T03:00:00Z'),
    });
    expect(creationBounds(undefined, undefined, ZONE)).toEqual({
      createdFrom: undefined,
      createdBefore: undefined,
    });
    expect(() => creationBounds('2026-11-02', '2026-11-01', ZONE)).toThrow(ValidationFailedError);
  });
});
