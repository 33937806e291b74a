import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ForbiddenError, InvalidInputError } from '../../../../common/errors/domain-error';
import { authenticatedSessionOf } from '../../../../common/session/company-session';

/** The `{companyId}` of the path must be the company of the token. */
@Injectable()
export class TenantGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request>();
    const session = authenticatedSessionOf(request);
    if (!session) {
      throw new Error('TenantGuard ran before the access-token guard authenticated the request');
    }
    const raw = request.params.companyId;
    if (typeof raw !== 'string' || !/^\d{1,10}$/.test(raw)) {
      throw new InvalidInputError('TENANT.INVALID_COMPANY_ID', 'companyId inválido');
    }
    if (Number(raw) !== session.companyId) {
      throw new ForbiddenError(
        'TENANT.FOREIGN_COMPANY',
        'Sem permissão para acessar dados de outra empresa',
      );
    }
    return true;
  }
}
