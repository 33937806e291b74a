import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The caller's address as Express reads it (trust proxy applies); 'unknown' when gone. */
export function clientIpOf(request: Request): string {
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}

export const ClientIp = createParamDecorator((_data: unknown, context: ExecutionContext): string =>
  clientIpOf(context.switchToHttp().getRequest<Request>()),
);
