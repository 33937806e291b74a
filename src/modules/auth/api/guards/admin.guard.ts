import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppConfig } from '../../../../config/app-config.service';
import { secretsEqual } from '../../../../common/crypto/hashing';
import { UnauthorizedError } from '../../../../common/errors/domain-error';

export const ADMIN_HEADER = 'access_token';

/** `ACCESS_TOKEN: Bearer <ADMIN_PASSWORD>`, compared in constant time. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const header = request.headers[ADMIN_HEADER];
    if (typeof header !== 'string' || header.trim() === '') {
      throw new UnauthorizedError(
        'ADMIN.MISSING',
        'Credencial de administrador ausente (cabeçalho ACCESS_TOKEN)',
      );
    }
    const match = /^Bearer\s+(.+)$/.exec(header.trim());
    if (!match) {
      throw new UnauthorizedError(
        'ADMIN.MALFORMED',
        'Credencial de administrador mal formatada: use "Bearer <senha>"',
      );
    }
    if (!secretsEqual(match[1], this.config.adminPassword)) {
      throw new UnauthorizedError('ADMIN.WRONG', 'Credencial de administrador inválida');
    }
    return true;
  }
}
