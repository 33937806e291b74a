import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { secretsEqual } from '../../common/crypto/hashing';
import { UnauthorizedError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config.service';

const BEARER = /^Bearer\s+(.+)$/i;

function bearerOf(request: Request): string | undefined {
  const header = request.headers.authorization;
  return typeof header === 'string' ? BEARER.exec(header.trim())?.[1] : undefined;
}

/**
 * Whether the request carries `Authorization: Bearer <METRICS_TOKEN>` (compared in constant
 * time); never when METRICS_TOKEN is unset, since then no caller is the operator.
 */
export function holdsMetricsToken(request: Request, expected: string | undefined): boolean {
  const presented = bearerOf(request);
  return expected !== undefined && presented !== undefined && secretsEqual(presented, expected);
}

/**
 * With METRICS_TOKEN set, the metrics route needs `Authorization: Bearer <METRICS_TOKEN>`
 * (compared in constant time); without it, the route is public like the rest of /actuator.
 */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.metricsToken;
    if (expected === undefined) {
      return true;
    }
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (holdsMetricsToken(request, expected)) {
      return true;
    }
    const presented = bearerOf(request);
    http.getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    throw new UnauthorizedError(
      presented === undefined ? 'METRICS.MISSING' : 'METRICS.WRONG',
      presented === undefined
        ? 'Credencial de métricas ausente: use Authorization: Bearer <METRICS_TOKEN>'
        : 'Credencial de métricas inválida',
    );
  }
}
