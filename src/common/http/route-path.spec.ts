import { routePathOf } from './route-path';

describe('routePathOf', () => {
  it.each([
    ['/API/CAMPAIGNS', '/api/campaigns'],
    ['/api/campaigns/', '/api/campaigns'],
    ['/Api/Gateway-Events/7/', '/api/gateway-events/7'],
    ['/', '/'],
    // Routing answers these with 404, so they must not read as a route either.
    ['/api/campaigns//', '/api/campaigns/'],
    ['//api/campaigns', '//api/campaigns'],
    ['/%61pi/campaigns', '/%61pi/campaigns'],
  ])('reads %s as %s', (path, expected) => {
    expect(routePathOf({ path })).toBe(expected);
  });
});
