import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { secretsEqual } from '../../common/crypto/hashing';
import { UnauthorizedError } from '../../common/errors/domain-error';
import { AppConfig } from '../../config/app-config.service';

const BEARER = /^Bearer\s+(.+)$/i;

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
    const header = http.getRequest<Request>().headers.authorization;
    const presented = typeof header === 'string' ? BEARER.exec(header.trim())?.[1] : undefined;
    if (presented !== undefined && secretsEqual(presented, expected)) {
      return true;
    }
    http.getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
    throw new UnauthorizedError(
      presented === undefined ? 'METRICS.MISSING' : 'METRICS.WRONG',
      presented === undefined
        ? 'Credencial de métricas ausente: use Authorization: Bearer <METRICS_TOKEN>'
        : 'Credencial de métricas inválida',
    );
  }
}
