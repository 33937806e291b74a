/** Event-loop delay of a service process over a window, from its Prometheus metrics. */
export interface EventLoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * prom-client's default metrics read a monitorEventLoopDelay histogram and reset it on every
 * scrape: a scrape before a window starts it, a scrape after it reads the window.
 */
export async function scrapeEventLoopDelay(baseUrl: string): Promise<EventLoopDelay> {
  const text = await (await fetch(`${baseUrl}/actuator/prometheus`)).text();
  const seconds = (name: string): number => {
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
    if (!match) {
      throw new Error(`/actuator/prometheus has no ${name}`);
    }
    return Number(match[1]);
  };
  return {
    p50Ms: seconds('nodejs_eventloop_lag_p50_seconds') * 1000,
    p99Ms: seconds('nodejs_eventloop_lag_p99_seconds') * 1000,
    maxMs: seconds('nodejs_eventloop_lag_max_seconds') * 1000,
  };
}
