import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionLookup } from '../../common/session/company-session';
import { AdminCompaniesController } from './api/admin-companies.controller';
import { AuthController } from './api/auth.controller';
import { CompanySettingsController } from './api/company-settings.controller';
import { AuthService } from './application/auth.service';
import { CompaniesAdminService } from './application/companies-admin.service';
import { CompanySettingsService } from './application/company-settings.service';
import { PasswordHasher } from './application/password-hasher';
import { SessionCache } from './application/session-cache.service';
import { AccessToken } from './domain/access-token.entity';
import { Company } from './domain/company.entity';
import { CompanySubscription } from './domain/company-subscription.entity';
import { AccessTokensRepository } from './application/ports/access-tokens.repository';
import { PgAccessTokensRepository } from './infrastructure/access-tokens.repository';
import { CompaniesRepository } from './infrastructure/companies.repository';
import { LoginFailuresRepository } from './infrastructure/login-failures.repository';
import { loginFailuresRetention } from './infrastructure/login-failures.retention';

/**
 * Companies, sessions and tokens: binds the SessionLookup port (made global by the kernel's
 * SessionModule) and exports what a company may do (CompanySettingsService).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Company, CompanySubscription, AccessToken])],
  controllers: [AuthController, AdminCompaniesController, CompanySettingsController],
  providers: [
    AuthService,
    loginFailuresRetention,
    CompaniesAdminService,
    CompanySettingsService,
    PasswordHasher,
    SessionCache,
    { provide: SessionLookup, useExisting: SessionCache },
    CompaniesRepository,
    LoginFailuresRepository,
    { provide: AccessTokensRepository, useClass: PgAccessTokensRepository },
  ],
  exports: [SessionLookup, SessionCache, CompanySettingsService],
})
export class AuthModule {}
