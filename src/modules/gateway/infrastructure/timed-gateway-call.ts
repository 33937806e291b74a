import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import type { Metrics } from '../../../common/metrics/metrics';
import { gatewayOutcomeOf } from '../domain/messaging-gateway';

/**
 * One gateway exchange and the reading of its answer, timed into the metrics with what it
 * proves (a send's answer that `parse` refuses is not counted as sent), for every adapter.
 */
export async function timedGatewayCall<T>(
  metrics: Metrics,
  operation: GatewayOperation,
  exchange: () => Promise<unknown>,
  parse: (data: unknown) => T,
): Promise<T> {
  const startedAt = performance.now();
  const seconds = () => (performance.now() - startedAt) / 1000;
  try {
    const result = parse(await exchange());
    metrics.observeGatewayCall(operation, operation.startsWith('send_') ? 'sent' : 'ok', seconds());
    return result;
  } catch (error) {
    metrics.observeGatewayCall(operation, gatewayOutcomeOf(error), seconds());
    throw error;
  }
}
