import type { Request } from 'express';

/**
 * The request's path in the form routing compares it: Express matches routes regardless of
 * case and with one optional trailing slash (`/API/Campaigns/` reaches `/api/campaigns`),
 * while `//api/campaigns` and percent-encoded letters reach no route. Every path check made
 * before routing (body limits, rate limits) tests this form, or an upper-case path would skip
 * the check yet reach the route.
 */
export function routePathOf(request: Pick<Request, 'path'>): string {
  return request.path.toLowerCase().replace(/(.)\/$/, '$1');
}
