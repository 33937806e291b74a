import { ExpiringMap } from './expiring-map';

describe('ExpiringMap', () => {
  let clock: number;
  const now = (): number => clock;

  beforeEach(() => {
    clock = 1_000;
  });

  it('answers an entry until its time to live has passed', () => {
    const map = new ExpiringMap<string, number>(100, 10, now);
    map.set('a', 1);
    clock += 99;
    expect(map.get('a')).toMatchObject({ value: 1 });
    clock += 1;
    expect(map.get('a')).toBeUndefined();
  });

  it('keeps a cached null apart from a missing entry', () => {
    const map = new ExpiringMap<string, number | null>(100, 10, now);
    map.set('none', null);
    expect(map.get('none')).toMatchObject({ value: null });
    expect(map.get('other')).toBeUndefined();
  });

  it('starts over when full instead of growing past its bound', () => {
    const map = new ExpiringMap<number, number>(100, 2, now);
    map.set(1, 1);
    map.set(2, 2);
    map.set(2, 20);
    expect(map.get(1)).toMatchObject({ value: 1 });
    map.set(3, 3);
    expect(map.get(1)).toBeUndefined();
    expect(map.get(3)).toMatchObject({ value: 3 });
  });

  it('deletes one key or every entry that matches', () => {
    const map = new ExpiringMap<string, number>(100, 10, now);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 2);
    map.delete('a');
    map.deleteWhere((value) => value === 2);
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, undefined, undefined]);
  });
});
