import { coalesceConnections, withoutSupersededConnections } from './connection-events';

const at = (second: number): Date => new Date(Date.UTC(2026, 10, 24, 12, 0, second));
const event = (second: number, state: string, statusReason?: number) => ({
  data: { instance: 'loja', state, statusReason },
  at: at(second),
});

describe('coalesceConnections', () => {
  it('keeps the latest state by the gateway’s time, whatever order the events came in', () => {
    const coalesced = coalesceConnections([
      event(3, 'connecting', 200),
      event(1, 'open'),
      event(2, 'close', 428),
    ]);
    expect(coalesced).toMatchObject({ state: 'connecting', reason: 200, at: at(3) });
    expect(coalesced?.latest).toEqual(event(3, 'connecting', 200));
  });

  it('between equal times, the one that arrived last wins', () => {
    expect(coalesceConnections([event(1, 'close', 428), event(1, 'open')])).toMatchObject({
      state: 'open',
      campaigns: 'release',
    });
  });

  it('ends the campaigns as the events applied in order would: only the last open or close counts', () => {
    const storm = Array.from({ length: 200 }, (_, i) => event(i, 'connecting', 200));
    expect(coalesceConnections(storm)).toMatchObject({ campaigns: null, loggedOut: false });
    expect(coalesceConnections([event(0, 'close', 428), ...storm.slice(1)])).toMatchObject({
      state: 'connecting',
      campaigns: 'hold',
    });
    expect(coalesceConnections([event(0, 'close', 428), event(1, 'open')])).toMatchObject({
      campaigns: 'release',
    });
    expect(coalesceConnections([event(0, 'open'), event(1, 'close', 428)])).toMatchObject({
      campaigns: 'hold',
    });
  });

  it('never loses a logout, even to a later open', () => {
    expect(
      coalesceConnections([event(0, 'close', 401), event(1, 'connecting'), event(2, 'open')]),
    ).toMatchObject({ state: 'open', loggedOut: true, campaigns: 'release' });
    expect(coalesceConnections([event(0, 'open'), event(1, 'close', 401)])).toMatchObject({
      state: 'close',
      reason: 401,
      loggedOut: true,
      campaigns: null,
    });
  });

  it('sorts an unreadable time first, and is null when no event carries a state', () => {
    const unreadable = { data: { state: 'close', statusReason: 428 }, at: new Date('x') };
    expect(coalesceConnections([event(5, 'open'), unreadable])).toMatchObject({ state: 'open' });
    expect(coalesceConnections([{ data: {}, at: at(1) }])).toBeNull();
    expect(coalesceConnections([])).toBeNull();
  });
});

describe('withoutSupersededConnections', () => {
  const state = (value: string, statusReason?: number) => ({ state: value, statusReason });

  it('keeps the latest connection event of a configuration, its last open or close, and every other event', () => {
    const events = [
      {
        gatewayConfigId: 1,
        event: 'connection.update',
        data: state('close', 428),
        at: at(2),
        id: 'a',
      },
      { gatewayConfigId: 1, event: 'messages.update', data: {}, at: at(1), id: 'b' },
      { gatewayConfigId: 2, event: 'connection.update', data: state('open'), at: at(1), id: 'c' },
      {
        gatewayConfigId: 1,
        event: 'connection.update',
        data: state('connecting'),
        at: at(3),
        id: 'd',
      },
      { gatewayConfigId: 1, event: 'connection.update', data: state('open'), at: at(0), id: 'e' },
      { gatewayConfigId: 1, event: 'messages.upsert', data: {}, at: at(0), id: 'f' },
    ];
    // a: the close that holds the campaigns, though `connecting` (d) came after it.
    expect(withoutSupersededConnections(events).map((e) => e.id)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'f',
    ]);
    expect(coalesceConnections(withoutSupersededConnections(events))).toMatchObject({
      state: 'connecting',
      campaigns: 'hold',
    });
  });

  it('never drops a logout, even for a later state', () => {
    const events = [
      {
        gatewayConfigId: 1,
        event: 'connection.update',
        data: state('close', 401),
        at: at(1),
        id: 'a',
      },
      { gatewayConfigId: 1, event: 'connection.update', data: state('open'), at: at(2), id: 'b' },
    ];
    expect(withoutSupersededConnections(events).map((e) => e.id)).toEqual(['a', 'b']);
  });
});
