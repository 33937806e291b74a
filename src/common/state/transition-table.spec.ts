import { IllegalTransitionError, statusLiteral, TransitionTable } from './transition-table';

type Light = 'RED' | 'GREEN' | 'AMBER';
const LIGHT = new TransitionTable<Light, 'go' | 'slow' | 'stop'>('LIGHT', {
  go: { RED: 'GREEN' },
  slow: { GREEN: 'AMBER' },
  stop: { AMBER: 'RED', GREEN: 'RED' },
});

describe('TransitionTable', () => {
  it('answers the next status of an allowed move, and nothing for another', () => {
    expect(LIGHT.next('RED', 'go')).toBe('GREEN');
    expect(LIGHT.next('GREEN', 'go')).toBeUndefined();
  });

  it('throws on a move the table does not allow', () => {
    expect(LIGHT.assertNext('GREEN', 'slow')).toBe('AMBER');
    expect(() => LIGHT.assertNext('RED', 'slow')).toThrow(IllegalTransitionError);
    expect(() => LIGHT.assertNext('RED', 'slow')).toThrow("LIGHT: no 'slow' from RED");
  });

  it('lists the statuses an action starts from, and its single target', () => {
    expect(LIGHT.statusesAllowing('stop')).toEqual(['AMBER', 'GREEN']);
    expect(LIGHT.target('stop')).toBe('RED');
  });

  it('renders a move as SQL literals for set-based statements', () => {
    expect(LIGHT.sql('stop')).toEqual({ from: "'AMBER', 'GREEN'", to: "'RED'" });
  });

  it('names the statuses no move leaves as final, for retention and reports', () => {
    const job = new TransitionTable<'NEW' | 'RUNNING' | 'DONE' | 'FAILED', 'run' | 'end' | 'fail'>(
      'JOB',
      {
        run: { NEW: 'RUNNING' },
        end: { RUNNING: 'DONE' },
        fail: { NEW: 'FAILED', RUNNING: 'FAILED' },
      },
    );
    expect(job.finalStatuses()).toEqual(['DONE', 'FAILED']);
    expect(job.finalSql()).toBe("'DONE', 'FAILED'");
    expect(LIGHT.finalStatuses()).toEqual([]);
  });

  it('refuses an action with several targets as a single SQL target', () => {
    const split = new TransitionTable<Light, 'next'>('SPLIT', {
      next: { RED: 'GREEN', GREEN: 'AMBER' },
    });
    expect(() => split.target('next')).toThrow('SPLIT.next has 2 target statuses');
  });

  it('never renders anything but a status as a literal', () => {
    expect(statusLiteral('SENT')).toBe("'SENT'");
    expect(() => statusLiteral("SENT'; DROP TABLE x; --")).toThrow('Not a status');
  });
});
