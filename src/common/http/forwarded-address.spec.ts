import type { IncomingMessage } from 'node:http';
import { forwardedAddressOf } from './forwarded-address';

const loopback = (address: string | undefined) => !!address?.startsWith('127.');
const request = (peer: string | undefined, forwardedFor?: string) =>
  ({
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
    socket: { remoteAddress: peer },
  }) as unknown as IncomingMessage;

describe('forwardedAddressOf', () => {
  it('is the peer when no proxy is trusted or none forwarded', () => {
    expect(forwardedAddressOf(request('127.0.0.1', '203.0.113.7'), () => false)).toBe('127.0.0.1');
    expect(forwardedAddressOf(request('127.0.0.1'), loopback)).toBe('127.0.0.1');
    expect(forwardedAddressOf(request(undefined, '203.0.113.7'), loopback)).toBeUndefined();
  });

  it('walks the forwarded hops from the nearest up to the first one not trusted', () => {
    expect(forwardedAddressOf(request('127.0.0.1', '203.0.113.7'), loopback)).toBe('203.0.113.7');
    expect(forwardedAddressOf(request('127.0.0.1', '203.0.113.7, 127.0.0.2'), loopback)).toBe(
      '203.0.113.7',
    );
    // A hop the client wrote itself, beyond the first untrusted one, is never believed.
    expect(forwardedAddressOf(request('127.0.0.1', '127.0.0.9,203.0.113.7'), loopback)).toBe(
      '203.0.113.7',
    );
    expect(forwardedAddressOf(request('198.51.100.1', '203.0.113.7'), loopback)).toBe(
      '198.51.100.1',
    );
  });
});
