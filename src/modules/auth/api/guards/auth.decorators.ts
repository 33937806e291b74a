import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { ApiHeader, ApiParam, ApiSecurity } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminGuard } from './admin.guard';
import {
  authenticatedSessionOf,
  CompanySession,
  presentedTokenOf,
} from '../../../../common/session/company-session';
import { TenantGuard } from './tenant.guard';
import { ApiCredentialErrors, ApiErrors } from '../../../../common/http/api-errors.decorator';
import { ApiNoSecurity } from '../../../../common/http/api-public.decorator';

export const PUBLIC_ROUTE = 'auth:public';
export const SUBSCRIPTION_EXEMPT = 'auth:subscriptionExempt';

const skipCompanyToken = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);

/** No credential at all (login, public files, actuator, the gateway's events). */
export const Public = (): MethodDecorator & ClassDecorator =>
  applyDecorators(skipCompanyToken(), ApiNoSecurity());

/** Reachable by a subscription company whose subscription lapsed (the auth routes). */
export const SubscriptionExempt = (): MethodDecorator & ClassDecorator =>
  SetMetadata(SUBSCRIPTION_EXEMPT, true);

/** Admin credential (`ACCESS_TOKEN: Bearer <ADMIN_PASSWORD>`) instead of a company token. */
export const AdminOnly = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    skipCompanyToken(),
    UseGuards(AdminGuard),
    ApiSecurity('admin'),
    ApiCredentialErrors(),
  );

/** Routes with `{companyId}` in the path: it must be the token's company (403 otherwise). */
export const TenantScoped = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    UseGuards(TenantGuard),
    ApiSecurity('accessToken'),
    ApiParam({ name: 'companyId', type: Number, description: 'A empresa do token' }),
    ApiCredentialErrors(),
    ApiErrors(403),
  );

/** A company token; 403 for another company's resource or a lapsed subscription. */
export const CompanyAuthenticated = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    ApiSecurity('accessToken'),
    ApiHeader({
      name: 'X-Access-Token',
      required: true,
      description: 'Token de acesso da empresa',
    }),
    ApiCredentialErrors(),
    ApiErrors(403),
  );

/**
 * The authenticated company. Fails loudly when the access-token guard did not run, so a
 * route can never read an unauthenticated caller as a company.
 */
export const CurrentCompany = createParamDecorator(
  (_data: unknown, context: ExecutionContext): CompanySession => {
    const session = authenticatedSessionOf(context.switchToHttp().getRequest<Request>());
    if (!session) {
      throw new Error(
        'CurrentCompany used on a route that the access-token guard did not authenticate',
      );
    }
    return session;
  },
);

/** The access token as the caller sent it (trimmed), for the routes that echo it back. */
export const PresentedToken = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string =>
    presentedTokenOf(context.switchToHttp().getRequest<Request>()),
);
