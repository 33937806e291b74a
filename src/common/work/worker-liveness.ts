import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

/**
 * The advisory-lock namespace of live workers (first key of the two-int lock). The second key
 * is hashtext(workerId); pg_locks shows it as classid / objid with objsubid 2.
 */
export const WORKER_LOCK_NAMESPACE = 0x43_41_4d_50;
const RECONNECT_MS = 1_000;

/** `host:pid:random`: tells in a lease column which process holds the row, unique per start. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * Proof of life that PostgreSQL itself keeps: while this process lives, one dedicated
 * connection holds a session-level advisory lock keyed by the worker's id. PostgreSQL drops it
 * the moment the process dies (its connection closes), so other workers can take over what
 * this one held within seconds instead of waiting out a lease. `holdsLock` turns false as soon
 * as the connection is lost, and the owner must then stop taking new work until it is back:
 * another worker may already be taking over.
 */
@Injectable()
export class WorkerLiveness implements OnApplicationShutdown {
  private readonly logger = new Logger(WorkerLiveness.name);
  readonly workerId = newWorkerId();
  private client: Client | undefined;
  private starting: Promise<void> | undefined;
  private locked = false;
  private closed = false;

  constructor(private readonly dataSource: DataSource) {}

  get holdsLock(): boolean {
    return this.locked;
  }

  /** Takes the lock (idempotent); resolves once it is held. */
  start(): Promise<void> {
    this.starting ??= this.open();
    return this.starting;
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.locked = false;
    await this.client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const options = this.dataSource.options as { url?: string };
    const client = new Client({ connectionString: options.url });
    client.on('error', (error) => {
      this.locked = false;
      this.logger.warn({ err: error.message }, 'liveness connection lost; reconnecting');
      this.reconnectLater();
    });
    await client.connect();
    await client.query(`SELECT pg_advisory_lock($1, hashtext($2))`, [
      WORKER_LOCK_NAMESPACE,
      this.workerId,
    ]);
    this.client = client;
    this.locked = true;
  }

  private reconnectLater(): void {
    const lost = this.client;
    this.client = undefined;
    this.starting = undefined;
    void lost?.end().catch(() => undefined);
    if (this.closed) {
      return;
    }
    setTimeout(() => {
      void this.start().catch(() => this.reconnectLater());
    }, RECONNECT_MS).unref();
  }
}

/**
 * SQL for "the worker named in `column` holds no liveness lock": its process is gone (or its
 * connection is), so what it leased can be taken over now. Bound to this database's locks.
 */
export function holderIsGoneSql(column: string): string {
  return `NOT EXISTS (SELECT 1 FROM pg_locks l
                       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                         AND l.classid = ${WORKER_LOCK_NAMESPACE}::oid
                         AND l.objid = hashtext(${column})::oid
                         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`;
}
