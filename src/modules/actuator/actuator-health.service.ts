import { Injectable } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorResult,
  HealthIndicatorService,
} from '@nestjs/terminus';
import { statfs } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { DataSource } from 'typeorm';
import {
  ComponentHealth,
  ComponentStatus,
  HealthRegistry,
} from '../../common/health/health-registry';
import { AppConfig } from '../../config/app-config.service';

export const DISK_FREE_THRESHOLD_BYTES = 10_485_760;
/** Read once: os.cpus() builds a description of every core, on every health call otherwise. */
const CORES = availableParallelism();

const HEAP_DOWN_RATIO = 0.95;

export interface SpringHealth {
  status: ComponentStatus;
  components?: Record<string, ComponentHealth>;
}

const COMPONENT_ORDER = ['db', 'diskSpace', 'ping', 'queue', 'memory', 'cpu'] as const;

/**
 * @nestjs/terminus runs the checks; the body is Spring Boot Actuator's shape
 * (docs/API-RULES.md §10), built from terminus's per-indicator results.
 */
@Injectable()
export class ActuatorHealthService {
  constructor(
    private readonly terminus: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    private readonly dataSource: DataSource,
    private readonly registry: HealthRegistry,
    private readonly config: AppConfig,
  ) {}

  /** Every component's status, and with `withDetails` their details too. */
  async full(withDetails: boolean): Promise<SpringHealth> {
    const health = await this.run({
      db: () => this.db(),
      diskSpace: () => this.disk(),
      ping: () => this.component('ping', { status: 'UP' }),
      queue: () => this.queue(),
      memory: () => this.memory(),
      cpu: () => this.cpu(),
    });
    return withDetails ? health : statusesOf(health);
  }

  liveness(): SpringHealth {
    return { status: 'UP' };
  }

  async readiness(): Promise<SpringHealth> {
    const result = await this.run({ db: () => this.db() });
    return { status: result.status };
  }

  private async run(
    checks: Record<string, () => Promise<HealthIndicatorResult>>,
  ): Promise<SpringHealth> {
    const details = await this.terminus
      .check(Object.values(checks))
      .then((r) => r.details)
      .catch((error: { response?: { details?: Record<string, unknown> } }) => {
        if (error.response?.details) {
          return error.response.details;
        }
        throw error;
      });
    const components: Record<string, ComponentHealth> = {};
    for (const name of COMPONENT_ORDER.filter((n) => n in checks)) {
      const entry = details[name] as {
        status: string;
        springStatus?: ComponentStatus;
        details?: Record<string, unknown>;
      };
      const status: ComponentStatus =
        entry?.springStatus ?? (entry?.status === 'up' ? 'UP' : 'DOWN');
      components[name] = entry?.details ? { status, details: entry.details } : { status };
    }
    const statuses = Object.values(components).map((c) => c.status);
    const status: ComponentStatus = statuses.includes('DOWN')
      ? 'DOWN'
      : statuses.includes('OUT_OF_SERVICE')
        ? 'OUT_OF_SERVICE'
        : 'UP';
    return { status, components };
  }

  private component(name: string, health: ComponentHealth): Promise<HealthIndicatorResult> {
    const check = this.indicator.check(name);
    const data = {
      springStatus: health.status,
      ...(health.details ? { details: health.details } : {}),
    };
    return Promise.resolve(
      health.status === 'UP' || health.status === 'UNKNOWN' ? check.up(data) : check.down(data),
    );
  }

  private async db(): Promise<HealthIndicatorResult> {
    const details = { database: 'PostgreSQL', validationQuery: 'isValid()' };
    try {
      await withTimeout(this.dataSource.query('SELECT 1'), 3_000);
      return this.component('db', { status: 'UP', details });
    } catch (error) {
      return this.component('db', {
        status: 'DOWN',
        details: { ...details, error: describe(error) },
      });
    }
  }

  private async disk(): Promise<HealthIndicatorResult> {
    const path = this.config.dataDir;
    try {
      const stats = await statfs(path).catch(() => statfs(process.cwd()));
      const total = stats.blocks * stats.bsize;
      const free = stats.bavail * stats.bsize;
      const details = { total, free, threshold: DISK_FREE_THRESHOLD_BYTES, path, exists: true };
      return this.component('diskSpace', {
        status: free >= DISK_FREE_THRESHOLD_BYTES ? 'UP' : 'DOWN',
        details,
      });
    } catch {
      return this.component('diskSpace', {
        status: 'DOWN',
        details: { total: 0, free: 0, threshold: DISK_FREE_THRESHOLD_BYTES, path, exists: false },
      });
    }
  }

  private async queue(): Promise<HealthIndicatorResult> {
    const probe = this.registry.probe('queue');
    if (!probe) {
      return this.component('queue', {
        status: 'UP',
        details: {
          broker: 'PostgreSQL',
          role: this.config.role,
          workers: this.config.runsWorkers ? 'idle' : 'disabled',
        },
      });
    }
    try {
      return this.component('queue', await withTimeout(probe(), 3_000));
    } catch (error) {
      return this.component('queue', { status: 'DOWN', details: { error: describe(error) } });
    }
  }

  private memory(): Promise<HealthIndicatorResult> {
    const usage = process.memoryUsage();
    const heapLimit = getHeapStatistics().heap_size_limit;
    const details = {
      rss: usage.rss,
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      heapLimit,
    };
    return this.component('memory', {
      status: usage.heapUsed / heapLimit < HEAP_DOWN_RATIO ? 'UP' : 'DOWN',
      details,
    });
  }

  private cpu(): Promise<HealthIndicatorResult> {
    const [oneMinute, fiveMinutes, fifteenMinutes] = loadavg();
    const usage = process.cpuUsage();
    return this.component('cpu', {
      status: 'UP',
      details: {
        cores: CORES,
        systemLoadAverage: { oneMinute, fiveMinutes, fifteenMinutes },
        processCpuSeconds: (usage.user + usage.system) / 1e6,
        uptimeSeconds: Math.round(process.uptime()),
      },
    });
  }
}

/** The health without its components' details: what anyone may see. */
function statusesOf(health: SpringHealth): SpringHealth {
  const components = Object.entries(health.components ?? {}).map(
    ([name, { status }]) => [name, { status }] as const,
  );
  return { status: health.status, components: Object.fromEntries(components) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
