import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config.service';
import { HealthRegistry } from './health/health-registry';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { Clock, SystemClock } from './time/clock';

/**
 * Process-wide services every module may inject: configuration, clock, health registry, and
 * the idempotency keys of the creating routes.
 */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
        HealthRegistry,
        IdempotencyRepository,
      ],
      exports: [AppConfig, Clock, HealthRegistry, IdempotencyRepository],
    };
  }
}
