import { FakeEvolutionApi } from '../test/support/fake-evolution-api';
import { registerBenchCompany, trackedBenchConfig } from './support/api';
import { defineBenchmark, type ResultRow } from './support/benchmark';
import { measureLoad, type LoadResult, type LoadTarget } from './support/load';

/** Other requests' p99 while strangers flood the events route (the issue saw 500–900 ms). */
export const NEIGHBOUR_P99_TARGET_MS = 50;

/** Near the longest argument autocannon's CLI can take (Linux caps one at 128 KiB). */
const LARGE_BODY_BYTES = 120 * 1024;

/**
 * What a refused event costs the service (GatewayEventsGate answers 401 before reading the
 * body, and closes the connection):
 * - refused: autocannon POSTs to /api/gateway-events/{id} with a wrong secret, once with a
 *   120 KB body and once with none; requests/s, latency and server CPU per request;
 * - neighbour: an authenticated GET /api/gateway-configs alone, then again while a second
 *   autocannon floods the events route with the 120 KB refused posts.
 *
 * `npm run bench -- gateway-events-refused`.
 */
export default defineBenchmark({
  name: 'gateway-events-refused',
  description:
    'refused gateway events: cost per request with and without a body; neighbours under a flood',
  async run(context) {
    const fake = new FakeEvolutionApi();
    await fake.start();
    context.onCleanup(() => fake.stop());
    const service = await context.startApp();
    const company = await registerBenchCompany(service.baseUrl);
    const config = await trackedBenchConfig(service.baseUrl, company, fake, 'bench-refused');
    const refused = (body: string): LoadTarget => ({
      name: `refused event, ${body.length} B body`,
      url: `${service.baseUrl}/api/gateway-events/${config.id}`,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'x-campaign-service-secret': 'not-the-secret',
      },
      body,
    });
    const large = refused(`{"event":"messages.update","data":"${'x'.repeat(LARGE_BODY_BYTES)}"}`);
    const neighbour: LoadTarget = {
      name: 'GET /api/gateway-configs',
      url: `${service.baseUrl}/api/gateway-configs`,
      headers: { 'X-Access-Token': company.token },
    };

    const withBody = await context.measure(large);
    const empty = await context.measure(refused(''));
    const alone = await context.measure(neighbour);
    const { settings } = context;
    const flood = measureLoad(large, {
      ...settings,
      warmupSeconds: 0,
      durationSeconds: settings.warmupSeconds + settings.durationSeconds + 2,
    });
    const flooded = await context.measure(neighbour);
    await flood;

    const row = (measure: string, result: LoadResult): ResultRow => ({
      measure,
      perSecond: Math.round(result.requestsPerSecond),
      p50Ms: result.latencyMs.p50,
      p99Ms: result.latencyMs.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      serverCpuUs: Math.round(result.serverCpuMicrosPerRequest),
    });
    return {
      rows: [
        row(`refused, ${LARGE_BODY_BYTES / 1024} KB body`, withBody),
        row('refused, empty body', empty),
        row('neighbour GET alone', alone),
        row('neighbour GET during the refused flood', flooded),
      ],
      checks: [
        {
          name: `server CPU of a refused ${LARGE_BODY_BYTES / 1024} KB event / of an empty one`,
          value: withBody.serverCpuMicrosPerRequest / Math.max(1, empty.serverCpuMicrosPerRequest),
        },
        {
          name: `neighbour p99 during the flood, ms left under ${NEIGHBOUR_P99_TARGET_MS}`,
          value: NEIGHBOUR_P99_TARGET_MS - flooded.latencyMs.p99,
          atLeast: 0,
        },
      ],
      notes: [
        'one application instance, rate limits raised (every refusal is a 401, none a 429: the 401 path is the one that does work)',
        'refused: each answer closes its connection, so every request also pays a TCP connect, and the latency is mostly autocannon reconnecting; it counts the server closing a connection it was still writing to as an error. The CPU per request is the figure to compare: what is left of a large body is what the kernel and Node take in before the connection closes',
        `neighbour during the flood: a second autocannon (same settings) posts the ${LARGE_BODY_BYTES / 1024} KB refused events throughout the neighbour's warm-up and measured run; the flood's own figures are not reported`,
      ],
      details: { withBody, empty, alone, flooded },
    };
  },
});
