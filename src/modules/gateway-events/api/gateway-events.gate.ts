import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { unauthorizedEvent } from '../domain/gateway-event';
import { clientIpOf } from '../../../common/http/client-ip';
import { Metrics } from '../../../common/metrics/metrics';
import { EVENTS_SECRET_HEADER } from '../../gateway/application/delivery-tracking.registrar';
import {
  EventsSource,
  GatewayEventsSources,
} from '../../gateway/application/gateway-events-sources';
import { RefusalBudget } from './refusal-budget';

/** Everything under the events route, matched as Express routes: without regard to case. */
const EVENTS_ROUTES = /^\/api\/gateway-events(\/|$)/i;
/** The one route that takes events: a configuration's id (IdParamPipe's range). */
const EVENTS_ROUTE = /^\/api\/gateway-events\/([1-9]\d{0,9})\/?$/i;
const MAX_ID = 2_147_483_647;

const sources = new WeakMap<IncomingMessage, EventsSource>();

/** The configuration the gate found for this request (its secret matched); undefined otherwise. */
export function eventsSourceOf(request: IncomingMessage): EventsSource | undefined {
  return sources.get(request);
}

/**
 * Runs before any body is read: an events request whose secret header does not open a
 * configuration that tracks delivery (a deleted one included) is answered 401 at once, its
 * body unread and its connection closed, so a stranger's megabyte costs a header and a cached
 * lookup. Such failures count against the address's anonymous budget (429 past it, with the
 * X-RateLimit-* headers); events that pass never do, so a gateway that also carries a deleted
 * configuration's events keeps delivering everyone else's. Once an address's budget is spent,
 * its requests are answered from memory: only configurations this instance found before are
 * looked up (GatewayEventsSources.eventsSource), so guessed ids cost no query.
 */
@Injectable()
export class GatewayEventsGate implements NestMiddleware {
  constructor(
    private readonly sources: GatewayEventsSources,
    private readonly budget: RefusalBudget,
    private readonly metrics: Metrics,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    if (!EVENTS_ROUTES.test(request.path)) {
      next();
      return;
    }
    const address = clientIpOf(request);
    this.sourceOf(request, address)
      .then((source) =>
        source ? void sources.set(request, source) : this.refuse(request, response, address),
      )
      .then(() => next(), next);
  }

  private async sourceOf(request: Request, address: string): Promise<EventsSource | null> {
    const id = Number(EVENTS_ROUTE.exec(request.path)?.[1]);
    const secret = request.headers[EVENTS_SECRET_HEADER];
    if (!(id <= MAX_ID) || typeof secret !== 'string' || secret === '') {
      return null;
    }
    return this.sources.eventsSource(id, secret, this.budget.isSpent(address));
  }

  private async refuse(request: Request, response: Response, address: string): Promise<never> {
    response.setHeader('Connection', 'close');
    response.once('finish', () => request.socket.destroy());
    await this.budget.count(address, response);
    this.metrics.countGatewayEventRefused('secret');
    throw unauthorizedEvent();
  }
}
