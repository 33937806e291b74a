import { plainEventIdOf } from './gateway-events.route';

const plain = {
  method: 'POST',
  url: '/api/gateway-events/42',
  headers: { 'content-type': 'application/json', 'content-length': '250' },
};
const withHeaders = (headers: Record<string, string>) => ({
  ...plain,
  headers: { ...plain.headers, ...headers },
});

describe('plainEventIdOf', () => {
  it('takes a POST of a plain JSON body of a known length on the route, in any case', () => {
    expect(plainEventIdOf(plain)).toBe(42);
    expect(plainEventIdOf({ ...plain, url: '/API/Gateway-Events/42/' })).toBe(42);
    expect(plainEventIdOf(withHeaders({ 'content-type': 'application/json; charset=UTF-8' }))).toBe(
      42,
    );
    expect(plainEventIdOf(withHeaders({ 'content-encoding': 'identity' }))).toBe(42);
    expect(plainEventIdOf(withHeaders({ 'content-length': String(1024 * 1024) }))).toBe(42);
  });

  it('leaves every other request to the generic path', () => {
    const others = [
      { ...plain, method: 'PUT' },
      { ...plain, url: '/api/gateway-events/42?x=1' },
      { ...plain, url: '/api/gateway-events/042' },
      { ...plain, url: '/api/gateway-events/2147483648' },
      { ...plain, url: '/api/gateway-events/42/more' },
      { ...plain, url: '//api/gateway-events/42' },
      withHeaders({ 'content-type': 'text/plain' }),
      withHeaders({ 'content-type': 'application/json; charset=utf8' }),
      withHeaders({ 'content-type': 'application/json; charset=utf-16' }),
      withHeaders({ 'content-encoding': 'gzip' }),
      withHeaders({ 'transfer-encoding': 'chunked' }),
      withHeaders({ 'content-length': '0' }),
      withHeaders({ 'content-length': String(1024 * 1024 + 1) }),
      { ...plain, headers: { 'content-type': 'application/json' } },
    ];
    for (const request of others) {
      expect(plainEventIdOf(request)).toBeNull();
    }
  });
});
