import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AccessTokenGuard } from './modules/auth/api/guards/access-token.guard';
import { CoreModule } from './common/core.module';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { JsonBodyMiddleware } from './common/http/json-body.middleware';
import { createValidationPipe } from './common/http/validation';
import type { Logger as PinoLogger } from 'pino';
import { loggerOptions } from './common/logging/logger-options';
import { SessionModule } from './common/session/session.module';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { WorkModule } from './common/work/work.module';
import { AppConfig } from './config/app-config.service';
import { dataSourceOptions } from './database/data-source-options';
import { ENTITIES } from './entity-catalog';
import { ActuatorModule } from './modules/actuator/actuator.module';
import { AutomationsModule } from './modules/automations/automations.module';
import { BlockedContactsModule } from './modules/blocked-contacts/blocked-contacts.module';
import { ImportsModule } from './modules/imports/imports.module';
import { GatewayEventsModule } from './modules/gateway-events/gateway-events.module';
import { CampaignsModule } from './modules/campaigns/campaigns.module';
import { AuthModule } from './modules/auth/auth.module';
import { GatewayModule } from './modules/gateway/gateway.module';
import { MediaModule } from './modules/media/media.module';
import { NoticesModule } from './modules/notices/notices.module';
import { OutboxModule } from './modules/outbox/outbox.module';
import { UserDatabasesModule } from './modules/user-databases/user-databases.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  rootLogger: PinoLogger;
}

@Module({})
export class AppModule {
  static forRoot({ config, databaseUrl, rootLogger }: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config),
        LoggerModule.forRoot(loggerOptions(rootLogger)),
        TypeOrmModule.forRoot(
          dataSourceOptions(databaseUrl, {
            statementTimeoutMs: config.statementTimeoutMs,
            separateReadPool: true,
            entities: ENTITIES,
          }),
        ),
        ScheduleModule.forRoot(),
        SessionModule.boundBy(AuthModule),
        RateLimitModule,
        AuthModule,
        GatewayModule,
        BlockedContactsModule,
        WorkModule,
        OutboxModule,
        NoticesModule,
        UserDatabasesModule,
        ImportsModule,
        CampaignsModule,
        AutomationsModule,
        GatewayEventsModule,
        ActuatorModule,
        MediaModule,
        WebhooksModule,
      ],
      providers: [
        { provide: APP_GUARD, useClass: AccessTokenGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        JsonBodyMiddleware,
      ],
    };
  }
}
