import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  prometheusContentType,
  Registry,
} from 'prom-client';
import type {
  GatewayEventRefusal,
  GatewayEventKind,
  GatewayOperation,
  GatewayOutcome,
  ImportKind,
  MessageOutcome,
  MessageReason,
  ReachOutLockCause,
  WebhookDeliveryOutcome,
  WorkQueue,
} from './metric-labels';

export const METRIC_PREFIX = 'campaign_service_';
/** The text exposition format 0.0.4: `text/plain; version=0.0.4; charset=utf-8`. */
export const METRICS_CONTENT_TYPE: string = prometheusContentType;
/** A queue's depth is counted up to this: a scrape stays cheap however deep the queue. */
export const QUEUE_DEPTH_CAP = 100_000;
/** Longest a scrape waits for the queue depths; past it they are left out of that scrape. */
const QUEUE_DEPTH_TIMEOUT_MS = 2_000;

/** The PostgreSQL pool as pg's Pool reports it. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/**
 * The service's metrics (docs/OPERATIONS.md, "Metrics"), in one prom-client registry per
 * application: the only place that knows prom-client. Modules record through the typed methods,
 * whose label values come from closed sets (metric-labels.ts), and plug in what is read at
 * scrape time (queue depths, campaigns in flight, the database pool). Each instance reports its
 * own; Prometheus sums them.
 */
@Injectable()
export class Metrics implements OnApplicationShutdown {
  private readonly logger = new Logger(Metrics.name);
  private readonly registry = new Registry();
  private readonly queueProbes = new Map<WorkQueue, () => Promise<number>>();
  private readCampaignsInFlight: () => number = () => 0;
  private readPool: () => PoolStats | null = () => null;

  private readonly httpRequests = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests from arrival to the end of the response, by route template (route="unmatched": no route matched), method and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  private readonly gatewayRequests = new Histogram({
    name: `${METRIC_PREFIX}gateway_request_duration_seconds`,
    help: 'Calls to the Evolution API gateway (each HTTP exchange, retries included), by operation and by what the answer proves (outcome)',
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  private readonly messages = this.counter(
    'messages_total',
    'Campaign contacts that reached an outcome (sent, failed; uncertain when the outcome is unknown, settled later as sent or failed), by reason class',
    'outcome',
    'reason',
  );

  private readonly reachOutLocks = this.counter(
    'reachout_locks_total',
    'Instances locked by WhatsApp for reaching out to people who have not talked with them (error 463), or whose lock widened, by cause (NACK_463, REFUSALS, WARM_REFUSED)',
    'cause',
  );

  private readonly replies = this.counter(
    'replies_total',
    'Messages from people within the reply window after a campaign message, counted once per campaign contact',
  );

  private readonly unmappedSenders = this.counter(
    'inbound_unmapped_senders_total',
    'Inbound messages whose sender could not be mapped to a phone number (an @lid JID without its phone-number JID): not counted as replies or warm contacts',
  );

  private readonly dispatchLag = new Histogram({
    name: `${METRIC_PREFIX}dispatch_lag_seconds`,
    help: 'How late each campaign message began to be sent, behind the moment its campaign could send (next_send_at and its pause)',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });

  private readonly webhookDeliveries = this.counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts that ended, by outcome (delivered, retry later, failed for good)',
    'outcome',
  );

  private readonly gatewayEventsRefused = this.counter(
    'gateway_events_refused_total',
    'Events posted to /api/gateway-events that were refused or dropped, by reason (secret, rate_limited, invalid, instance, apikey, signature, unrouted)',
    'reason',
  );

  private readonly gatewayEventsSetAside = this.counter(
    'gateway_events_set_aside_total',
    'Gateway events that failed on their own when applied, set aside with their reason (gateway_events.failed_at) instead of blocking the others, by event',
    'event',
  );

  private readonly importedRows = this.counter(
    'imported_rows_total',
    'Rows written into user databases by imports, by kind (file, push, push_async, gateway_sync)',
    'kind',
  );

  private readonly campaignsInFlight: Gauge = new Gauge({
    name: `${METRIC_PREFIX}campaigns_in_flight`,
    help: 'Campaigns this instance holds right now (leased, one message in flight each)',
    registers: [this.registry],
    collect: () => this.campaignsInFlight.set(this.readCampaignsInFlight()),
  });

  private readonly poolConnections: Gauge<'state'> = new Gauge({
    name: `${METRIC_PREFIX}db_pool_connections`,
    help: 'Connections of the main PostgreSQL pool (writes and background work), by state (in_use, idle)',
    labelNames: ['state'] as const,
    registers: [this.registry],
    collect: () => {
      const pool = this.readPool();
      this.poolConnections.reset();
      if (pool) {
        this.poolConnections.set({ state: 'in_use' }, pool.total - pool.idle);
        this.poolConnections.set({ state: 'idle' }, pool.idle);
      }
    },
  });

  private readonly poolWaiting: Gauge = new Gauge({
    name: `${METRIC_PREFIX}db_pool_waiting_clients`,
    help: 'Queries waiting for a connection of the main PostgreSQL pool',
    registers: [this.registry],
    collect: () => this.poolWaiting.set(this.readPool()?.waiting ?? 0),
  });

  private readonly poolMax: Gauge = new Gauge({
    name: `${METRIC_PREFIX}db_pool_max_connections`,
    help: 'Size limit of the main PostgreSQL pool',
    registers: [this.registry],
    collect: () => this.poolMax.set(this.readPool()?.max ?? 0),
  });

  // After the pool's gauges: their figures are read before this one's queries take connections.
  private readonly workQueueDepth: Gauge<'queue'> = new Gauge({
    name: `${METRIC_PREFIX}work_queue_depth`,
    help: `Items due now and waiting for a worker, by queue, counted up to ${QUEUE_DEPTH_CAP} (the same for every instance: aggregate with max)`,
    labelNames: ['queue'] as const,
    registers: [this.registry],
    collect: async () => {
      const depths = await this.queueDepths();
      this.workQueueDepth.reset();
      for (const [queue, depth] of depths) {
        this.workQueueDepth.set({ queue }, depth);
      }
    },
  });

  constructor() {
    // Node.js and process metrics under their usual names (process_*, nodejs_*: event-loop
    // lag, heap, GC), so that the common Node.js dashboards read them as they are.
    collectDefaultMetrics({ register: this.registry });
  }

  /** Every metric in the text exposition format (METRICS_CONTENT_TYPE); the gauges read now. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** One HTTP request; called once per request by the request-log middleware. */
  observeHttpRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.httpRequests.observe({ method, route, status_code: statusCode }, seconds);
  }

  observeGatewayCall(operation: GatewayOperation, outcome: GatewayOutcome, seconds: number): void {
    this.gatewayRequests.observe({ operation, outcome }, seconds);
  }

  /** Contacts whose rows moved to `outcome`; call after the change committed. */
  countMessages(outcome: MessageOutcome, reason: MessageReason, count = 1): void {
    if (count > 0) {
      this.messages.inc({ outcome, reason }, count);
    }
  }

  observeDispatchLag(seconds: number): void {
    this.dispatchLag.observe(Math.max(0, seconds));
  }

  countWebhookDeliveries(outcome: WebhookDeliveryOutcome, count = 1): void {
    if (count > 0) {
      this.webhookDeliveries.inc({ outcome }, count);
    }
  }

  countReachOutLock(cause: ReachOutLockCause): void {
    this.reachOutLocks.inc({ cause });
  }

  countReplies(count = 1): void {
    this.replies.inc(count);
  }

  countUnmappedSenders(count = 1): void {
    this.unmappedSenders.inc(count);
  }

  countGatewayEventRefused(reason: GatewayEventRefusal): void {
    this.gatewayEventsRefused.inc({ reason });
  }

  /** A gateway event set aside; call after the change committed. */
  countGatewayEventSetAside(event: GatewayEventKind): void {
    this.gatewayEventsSetAside.inc({ event });
  }

  /** Rows an import wrote; call after it committed. */
  countImportedRows(kind: ImportKind, rows: number): void {
    if (rows > 0) {
      this.importedRows.inc({ kind }, rows);
    }
  }

  /** The number of campaigns this instance holds, read at each scrape. */
  reportCampaignsInFlight(read: () => number): void {
    this.readCampaignsInFlight = read;
  }

  /**
   * A queue's depth, read at each scrape: a cheap indexed count, capped at QUEUE_DEPTH_CAP. A
   * probe that fails or is slow leaves its queue out of that scrape, never the scrape itself.
   */
  reportQueueDepth(queue: WorkQueue, depth: () => Promise<number>): void {
    this.queueProbes.set(queue, depth);
  }

  /** The PostgreSQL pool's figures, read at each scrape (null: no pool). */
  reportDatabasePool(read: () => PoolStats | null): void {
    this.readPool = read;
  }

  onApplicationShutdown(): void {
    this.queueProbes.clear();
    this.readCampaignsInFlight = () => 0;
    this.readPool = () => null;
  }

  /** A counter in this registry, named with the service prefix. */
  private counter<L extends string>(name: string, help: string, ...labelNames: L[]): Counter<L> {
    return new Counter({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
    });
  }

  private async queueDepths(): Promise<Array<[WorkQueue, number]>> {
    const probes = [...this.queueProbes];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), QUEUE_DEPTH_TIMEOUT_MS);
      timer.unref();
    });
    const settled = await Promise.all(
      probes.map(([queue, depth]) =>
        Promise.race([
          depth().then(
            (value): [WorkQueue, number] | null => [queue, Math.min(value, QUEUE_DEPTH_CAP)],
            (error: unknown) => {
              this.logger.warn(
                { queue, err: error instanceof Error ? error.message : String(error) },
                'Work queue depth not read for this scrape',
              );
              return null;
            },
          ),
          timedOut,
        ]),
      ),
    );
    clearTimeout(timer);
    return settled.filter((entry): entry is [WorkQueue, number] => entry !== null);
  }
}
