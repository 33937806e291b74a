import { Metrics, METRICS_CONTENT_TYPE, QUEUE_DEPTH_CAP } from './metrics';

/** The value of the one sample `name{labels}` of a scrape, undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Metrics', () => {
  let metrics: Metrics;

  beforeEach(() => {
    metrics = new Metrics();
  });
  afterEach(() => {
    metrics.onApplicationShutdown();
  });

  it('scrapes the text exposition format 0.0.4 with every metric of the service', async () => {
    expect(METRICS_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await metrics.scrape();
    for (const [name, type] of [
      ['campaign_service_http_request_duration_seconds', 'histogram'],
      ['campaign_service_gateway_request_duration_seconds', 'histogram'],
      ['campaign_service_messages_total', 'counter'],
      ['campaign_service_dispatch_lag_seconds', 'histogram'],
      ['campaign_service_campaigns_in_flight', 'gauge'],
      ['campaign_service_work_queue_depth', 'gauge'],
      ['campaign_service_webhook_deliveries_total', 'counter'],
      ['campaign_service_imported_rows_total', 'counter'],
      ['campaign_service_db_pool_connections', 'gauge'],
      ['campaign_service_db_pool_waiting_clients', 'gauge'],
      ['campaign_service_db_pool_max_connections', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
      ['nodejs_heap_size_used_bytes', 'gauge'],
      ['nodejs_gc_duration_seconds', 'histogram'],
      ['process_cpu_seconds_total', 'counter'],
    ]) {
      expect(text).toContain(`# TYPE ${name} ${type}\n`);
    }
  });

  it('records what the modules report, with their labels', async () => {
    metrics.observeHttpRequest('GET', '/api/campaigns/:id', 200, 0.012);
    metrics.observeHttpRequest('GET', '/api/campaigns/:id', 200, 0.3);
    metrics.observeGatewayCall('send_text', 'refused', 0.05);
    metrics.countMessages('sent', 'gateway', 3);
    metrics.countMessages('failed', 'refused_number');
    metrics.countMessages('uncertain', 'gateway', 0);
    metrics.observeDispatchLag(-1);
    metrics.countWebhookDeliveries('delivered', 2);
    metrics.countImportedRows('file', 1000);
    metrics.countImportedRows('push', 0);
    const text = await metrics.scrape();
    const http = 'campaign_service_http_request_duration_seconds';
    const labels = 'method="GET",route="/api/campaigns/:id",status_code="200"';
    expect(sample(text, `${http}_count{${labels}}`)).toBe(2);
    expect(sample(text, `${http}_bucket{le="0.025",${labels}}`)).toBe(1);
    expect(
      sample(
        text,
        'campaign_service_gateway_request_duration_seconds_count{operation="send_text",outcome="refused"}',
      ),
    ).toBe(1);
    expect(sample(text, 'campaign_service_messages_total{outcome="sent",reason="gateway"}')).toBe(
      3,
    );
    expect(
      sample(text, 'campaign_service_messages_total{outcome="failed",reason="refused_number"}'),
    ).toBe(1);
    // Nothing counted, no series.
    expect(text).not.toContain('outcome="uncertain"');
    expect(text).not.toContain('kind="push"');
    // A send never begins before it is due: a negative lag counts as on time.
    expect(sample(text, 'campaign_service_dispatch_lag_seconds_bucket{le="0.05"}')).toBe(1);
    expect(sample(text, 'campaign_service_webhook_deliveries_total{outcome="delivered"}')).toBe(2);
    expect(sample(text, 'campaign_service_imported_rows_total{kind="file"}')).toBe(1000);
  });

  it('reads the gauges at scrape time: campaigns in flight, the pool, queue depths up to the cap', async () => {
    let inFlight = 2;
    metrics.reportCampaignsInFlight(() => inFlight);
    metrics.reportDatabasePool(() => ({ total: 7, idle: 3, waiting: 1, max: 20 }));
    metrics.reportQueueDepth('campaigns', () => Promise.resolve(4));
    metrics.reportQueueDepth('notices', () => Promise.resolve(QUEUE_DEPTH_CAP + 5));
    let text = await metrics.scrape();
    expect(sample(text, 'campaign_service_campaigns_in_flight')).toBe(2);
    expect(sample(text, 'campaign_service_db_pool_connections{state="in_use"}')).toBe(4);
    expect(sample(text, 'campaign_service_db_pool_connections{state="idle"}')).toBe(3);
    expect(sample(text, 'campaign_service_db_pool_waiting_clients')).toBe(1);
    expect(sample(text, 'campaign_service_db_pool_max_connections')).toBe(20);
    expect(sample(text, 'campaign_service_work_queue_depth{queue="campaigns"}')).toBe(4);
    expect(sample(text, 'campaign_service_work_queue_depth{queue="notices"}')).toBe(
      QUEUE_DEPTH_CAP,
    );
    inFlight = 0;
    text = await metrics.scrape();
    expect(sample(text, 'campaign_service_campaigns_in_flight')).toBe(0);
  });

  it('leaves out of a scrape a queue whose count fails or hangs, and answers anyway', async () => {
    metrics.reportQueueDepth('campaigns', () => Promise.resolve(1));
    metrics.reportQueueDepth('import_jobs', () => Promise.reject(new Error('pool timeout')));
    metrics.reportQueueDepth('notices', () => new Promise<number>(() => undefined));
    const started = Date.now();
    const text = await metrics.scrape();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sample(text, 'campaign_service_work_queue_depth{queue="campaigns"}')).toBe(1);
    expect(text).not.toContain('queue="import_jobs"');
    expect(text).not.toContain('queue="notices"');
  });
});
