import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { Metrics, PoolStats } from './metrics';

/**
 * Reports the application's main PostgreSQL pool (TypeORM's pg Pool: writes, transactions and
 * background work) at each scrape; the read pool beside it serves only the API's reads.
 */
@Injectable()
export class DatabasePoolMetrics implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.metrics.reportDatabasePool(() => poolStatsOf(this.dataSource));
  }
}

function poolStatsOf(dataSource: DataSource): PoolStats | null {
  // TypeORM's PostgresDriver keeps its main pg Pool as `master`, the read pool in `slaves`.
  const pool = (dataSource.driver as { master?: Pool }).master;
  if (!dataSource.isInitialized || !pool) {
    return null;
  }
  return {
    total: pool.totalCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
    max: pool.options.max ?? 10,
  };
}
