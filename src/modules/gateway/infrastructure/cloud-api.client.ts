import { Injectable, Logger } from '@nestjs/common';
import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import { Metrics } from '../../../common/metrics/metrics';
import { OutboundHttpClient, OutboundMethod } from '../../../common/outbound/outbound-http.client';
import { CloudApiTarget } from '../domain/messaging-gateway';
import { loggedCallFailure } from './gateway-call-failure';
import { cloudApiErrorFromResponse } from './cloud-api.errors';
import { endpointUrl } from './evolution-api.gateway';
import { exchangeJson, timedGatewayCall } from './timed-gateway-call';

export interface GraphCall {
  /** What the call is for, as the metrics label it. */
  operation: GatewayOperation;
  method: OutboundMethod;
  /** After the version: `/{phone-number-id}/messages`. */
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  timeoutMs: number;
}

/**
 * One exchange with Meta's Graph API over the outbound HTTP client (so every call passes the
 * same target check as any URL): the bearer token, the version in the path, Meta's errors
 * classified (cloud-api.errors.ts), each call timed into the metrics. No retries here.
 */
@Injectable()
export class GraphApiClient {
  private readonly logger = new Logger(GraphApiClient.name);

  constructor(
    private readonly http: OutboundHttpClient,
    private readonly metrics: Metrics,
  ) {}

  /** What `parse` makes of a 2xx body, else the classified GatewayError; timed. */
  call<T>(target: CloudApiTarget, call: GraphCall, parse: (data: unknown) => T): Promise<T> {
    return timedGatewayCall(this.metrics, call.operation, () => this.exchange(target, call), parse);
  }

  private async exchange(target: CloudApiTarget, call: GraphCall): Promise<unknown> {
    try {
      return await exchangeJson(
        this.http,
        {
          method: call.method,
          url: graphUrl(target, call.path, call.query),
          headers: { Authorization: `Bearer ${target.accessToken}` },
          json: call.json,
          timeoutMs: call.timeoutMs,
        },
        (response) => cloudApiErrorFromResponse(response.status, response.data),
      );
    } catch (error) {
      // Which number and call failed, and how: never the token.
      const where = { phoneNumberId: target.phoneNumberId, operation: call.operation };
      throw loggedCallFailure(this.logger, 'Graph API call failed', where, error);
    }
  }
}

/** `{base}/{version}{path}`: the base may carry a path prefix (a proxy in front of Meta). */
export function graphUrl(
  target: CloudApiTarget,
  path: string,
  query: Record<string, string> = {},
): URL {
  return endpointUrl(target.url, `/${encodeURIComponent(target.apiVersion)}${path}`, query);
}
