import { DynamicModule, Global, Module } from '@nestjs/common';
import { SecretBox } from './crypto/secret-box';
import { OutboundHttpClient } from './outbound/outbound-http.client';
import { OutboundTargetGuard } from './outbound/outbound-target.guard';
import { AppConfig } from '../config/app-config.service';
import { HealthRegistry } from './health/health-registry';
import { IdempotencyRepository } from './idempotency/idempotency.repository';
import { idempotencyKeysRetention } from './idempotency/idempotency-keys.retention';
import { RetentionJobs } from './retention/retention-jobs';
import { RetentionPolicies } from './retention/retention-policies';
import { DatabasePoolMetrics } from './metrics/database-pool.metrics';
import { Metrics } from './metrics/metrics';
import { Clock, SystemClock } from './time/clock';
import { UnitOfWork } from './persistence/transaction';
import { TypeOrmUnitOfWork } from '../database/transactions';

/**
 * Process-wide services every module may inject: configuration, clock, health registry, the
 * idempotency keys of the creating routes, the outbound HTTP client (with its target check),
 * the secret box, the metrics registry, the unit of work that opens transactions, and the retention jobs that run the policies the
 * modules declare.
 */
/** The services CoreModule both provides and exports, as they are (no factory, no alias). */
const SHARED_SERVICES = [
  HealthRegistry,
  IdempotencyRepository,
  OutboundTargetGuard,
  OutboundHttpClient,
  SecretBox,
  RetentionPolicies,
  Metrics,
];

@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
        { provide: UnitOfWork, useClass: TypeOrmUnitOfWork },
        ...SHARED_SERVICES,
        RetentionJobs,
        idempotencyKeysRetention,
        DatabasePoolMetrics,
      ],
      exports: [AppConfig, Clock, UnitOfWork, ...SHARED_SERVICES],
    };
  }
}
