import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { authenticatedSessionOf } from '../../../common/session/company-session';
import { ForbiddenError } from '../../../common/errors/domain-error';
import { CompanySettingsService } from '../../auth/application/company-settings.service';

/** With automationsEnabled false, every /api/automations route answers 403. */
@Injectable()
export class AutomationsEnabledGuard implements CanActivate {
  constructor(private readonly settings: CompanySettingsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const session = authenticatedSessionOf(context.switchToHttp().getRequest<Request>());
    if (!session) {
      throw new Error('AutomationsEnabledGuard ran before the access-token guard');
    }
    const company = await this.settings.get(session.companyId);
    if (!company.automationsEnabled) {
      throw new ForbiddenError(
        'AUTOMATION.DISABLED',
        'Automações estão desativadas para esta empresa',
      );
    }
    return true;
  }
}
