import { INTERRUPTED_BY_SHUTDOWN, outcomeOf } from './webhook-delivery';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const SCHEDULE = [10_000, 30_000, 120_000];
const at = (ms: number): Date => new Date(NOW.getTime() + ms);

describe('outcome of a webhook attempt', () => {
  it.each([200, 201, 202, 204, 299])('HTTP %i is delivered', (statusCode) => {
    expect(outcomeOf({ kind: 'response', statusCode }, 1, SCHEDULE, NOW)).toEqual({
      status: 'DELIVERED',
      nextAttemptAt: null,
      statusCode,
      error: null,
    });
  });

  it.each([199, 301, 400, 404, 410, 429, 500, 503])('HTTP %i is retried', (statusCode) => {
    expect(outcomeOf({ kind: 'response', statusCode }, 1, SCHEDULE, NOW)).toEqual({
      status: 'PENDING',
      nextAttemptAt: at(10_000),
      statusCode,
      error: `o destino respondeu HTTP ${statusCode}`,
    });
  });

  it('waits the schedule’s delay for the attempt just made, and fails after the last', () => {
    const result = { kind: 'error', message: 'Tempo esgotado (10000 ms) ao chamar x' } as const;
    expect(outcomeOf(result, 1, SCHEDULE, NOW).nextAttemptAt).toEqual(at(10_000));
    expect(outcomeOf(result, 2, SCHEDULE, NOW).nextAttemptAt).toEqual(at(30_000));
    expect(outcomeOf(result, 3, SCHEDULE, NOW).nextAttemptAt).toEqual(at(120_000));
    expect(outcomeOf(result, 4, SCHEDULE, NOW)).toEqual({
      status: 'FAILED',
      nextAttemptAt: null,
      statusCode: null,
      error: result.message,
    });
  });

  it('with an empty schedule, the first failure is final', () => {
    expect(outcomeOf({ kind: 'response', statusCode: 500 }, 1, [], NOW).status).toBe('FAILED');
  });

  it('puts an attempt cut short by a shutdown back in the queue at once', () => {
    expect(outcomeOf({ kind: 'aborted' }, 3, SCHEDULE, NOW)).toEqual({
      status: 'PENDING',
      nextAttemptAt: NOW,
      statusCode: null,
      error: INTERRUPTED_BY_SHUTDOWN,
    });
  });
});
