import type { IncomingMessage } from 'node:http';
import { methodLabel, routeLabel, UNMATCHED_ROUTE } from './metric-labels';

function request(fields: Record<string, unknown>): IncomingMessage {
  return { url: '/api/campaigns/42?page=1', method: 'GET', ...fields } as IncomingMessage;
}

describe('routeLabel', () => {
  it('is the template of the route Express matched, never the path the client sent', () => {
    expect(routeLabel(request({ route: { path: '/api/campaigns/:id' } }))).toBe(
      '/api/campaigns/:id',
    );
    expect(
      routeLabel(
        request({
          url: '/api/companies/7/webhook',
          route: { path: '/api/companies/:companyId/webhook' },
        }),
      ),
    ).toBe('/api/companies/:companyId/webhook');
  });

  it('is the fixed UNMATCHED_ROUTE when no route matched', () => {
    expect(UNMATCHED_ROUTE).toBe('unmatched');
    expect(routeLabel(request({}))).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(request({ route: undefined }))).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(request({ route: {} }))).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(request({ route: { path: '' } }))).toBe(UNMATCHED_ROUTE);
  });

  it('never takes a path that is not a plain template (a pattern or a list)', () => {
    expect(routeLabel(request({ route: { path: /^\/api\/.*/ } }))).toBe(UNMATCHED_ROUTE);
    expect(routeLabel(request({ route: { path: ['/a/:id', '/b/:id'] } }))).toBe(UNMATCHED_ROUTE);
  });
});

describe('methodLabel', () => {
  it('keeps the usual methods and folds the rest into OTHER', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      expect(methodLabel(method)).toBe(method);
    }
    expect(methodLabel('PROPFIND')).toBe('OTHER');
    expect(methodLabel('get')).toBe('OTHER');
    expect(methodLabel(undefined)).toBe('OTHER');
  });
});
