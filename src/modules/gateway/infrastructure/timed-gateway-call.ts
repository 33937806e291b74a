import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import type { Metrics } from '../../../common/metrics/metrics';
import { OutboundError } from '../../../common/outbound/outbound.errors';
import type {
  OutboundHttpClient,
  OutboundJsonResponse,
  OutboundRequest,
} from '../../../common/outbound/outbound-http.client';
import { GatewayError, gatewayOutcomeOf } from '../domain/messaging-gateway';
import { gatewayErrorFromOutbound } from './evolution-api.errors';

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

/**
 * One JSON exchange with a gateway, the rule every gateway shares: the body of a 2xx answer;
 * refused or unresolved before the request was written, transient (not sent); a timeout or
 * reset after it was written, uncertain (gatewayErrorFromOutbound); any other answer, the
 * GatewayError `errorOf` says it proves.
 */
export async function exchangeJson(
  http: OutboundHttpClient,
  request: OutboundRequest,
  errorOf: (response: OutboundJsonResponse) => GatewayError,
): Promise<unknown> {
  let response: OutboundJsonResponse;
  try {
    response = await http.requestJson(request);
  } catch (error) {
    throw error instanceof OutboundError ? gatewayErrorFromOutbound(error) : error;
  }
  if (response.status >= 200 && response.status < 300) {
    return response.data;
  }
  throw errorOf(response);
}
