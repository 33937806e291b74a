import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../../../common/errors/domain-error';
import { PUBLIC_ROUTE, SUBSCRIPTION_EXEMPT } from './auth.decorators';
import {
  attachAuthenticatedSession,
  resolveRequestSession,
  SessionLookup,
} from '../../../../common/session/company-session';

interface RouteAccess {
  isPublic: boolean;
  subscriptionExempt: boolean;
}

/** Global guard: every route needs a valid company token unless marked @Public(). */
@Injectable()
export class AccessTokenGuard implements CanActivate {
  /** Route metadata never changes after start: read once per controller and handler. */
  private readonly accessByRoute = new WeakMap<object, WeakMap<object, RouteAccess>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionLookup,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.accessOf(context);
    if (access.isPublic) {
      return true;
    }
    const request = context.switchToHttp().getRequest<Request>();
    const session = await resolveRequestSession(request, this.sessions);
    if (!session || !session.isActive) {
      throw new UnauthorizedError('AUTH.INVALID_TOKEN', 'Token de acesso inválido ou ausente');
    }
    if (!session.hasServiceAccess && !access.subscriptionExempt) {
      throw new ForbiddenError(
        'AUTH.SUBSCRIPTION_INACTIVE',
        'Assinatura inativa: regularize o pagamento para acessar o serviço',
      );
    }
    attachAuthenticatedSession(request, session);
    return true;
  }

  private accessOf(context: ExecutionContext): RouteAccess {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byHandler = this.accessByRoute.get(controller);
    if (!byHandler) {
      byHandler = new WeakMap();
      this.accessByRoute.set(controller, byHandler);
    }
    let access = byHandler.get(handler);
    if (!access) {
      const targets = [handler, controller];
      access = {
        isPublic: this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets) === true,
        subscriptionExempt:
          this.reflector.getAllAndOverride<boolean>(SUBSCRIPTION_EXEMPT, targets) === true,
      };
      byHandler.set(handler, access);
    }
    return access;
  }
}
