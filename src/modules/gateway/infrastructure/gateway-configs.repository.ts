import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { TenantRepository } from '../../../common/tenancy/owned-resource';
import { queryRows } from '../../../database/query-rows';
import type { Transaction } from '../../../common/persistence/transaction';
import { EventsRefusal, GatewayConfig } from '../domain/gateway-config.entity';
import {
  reachOutLockOf,
  type ReachOutLock,
  type StoredReachOutLock,
} from '../domain/reach-out-lock';
import { GATEWAY_CONFIG } from '../domain/gateway-config.errors';
import { PgNotifications } from '../../../common/work/pg-notifications';

const FOREIGN_KEY_VIOLATION = '23503';
/** Every committed change to a configuration, announced with its id as the payload. */
const CHANGES_CHANNEL = 'gateway_configs';

@Injectable()
export class GatewayConfigsRepository extends TenantRepository<GatewayConfig> {
  private readonly changeListeners: Array<(id: number | null) => void> = [];

  constructor(
    @InjectRepository(GatewayConfig) configs: Repository<GatewayConfig>,
    private readonly notifications: PgNotifications,
  ) {
    super(configs, GATEWAY_CONFIG);
  }

  /**
   * Calls `listener` with a configuration's id after each of its changes commits: at once for a
   * change made by this instance, through a notification for one made by another instance;
   * with null when notifications may have been missed (any configuration may have changed).
   */
  async watchChanges(listener: (id: number | null) => void): Promise<void> {
    this.changeListeners.push(listener);
    await this.notifications.subscribe(CHANGES_CHANNEL, (payload) =>
      listener(payload === null ? null : Number(payload)),
    );
  }

  /** Newest first; ids grow with creation, so the (company_id, id) index serves the order. */
  listNewestFirst(companyId: number): Promise<GatewayConfig[]> {
    return this.repository.find({ where: { companyId }, order: { id: 'DESC' } });
  }

  /** Oldest first, as the company's usage view lists them; the (company_id, id) index serves it. */
  listOldestFirst(companyId: number): Promise<GatewayConfig[]> {
    return this.repository.find({ where: { companyId }, order: { id: 'ASC' } });
  }

  /** For inbound events, which name a configuration but no company: the caller checks its secret. */
  findById(id: number): Promise<GatewayConfig | null> {
    return this.repository.findOneBy({ id });
  }

  /**
   * `not_paired` stays until the instance is seen `open`: `close` and `connecting` (its
   * reconnect loop) are what a never-paired instance reports too.
   */
  async recordInstanceState(
    id: number,
    state: string,
    reason: number | null,
    at: Date,
  ): Promise<boolean> {
    const rows = await queryRows<{ id: number }>(
      this.repository.manager,
      `UPDATE gateway_configs
          SET instance_state = CASE WHEN instance_state = 'not_paired' AND $2 <> 'open'
                                    THEN instance_state ELSE $2 END,
              instance_state_reason = $3, instance_state_at = $4
        WHERE id = $1 AND (instance_state_at IS NULL OR instance_state_at <= $4)
        RETURNING id`,
      [id, state.slice(0, 20), reason, at],
    );
    return rows.length > 0;
  }

  async save(config: GatewayConfig): Promise<GatewayConfig> {
    const saved = await this.repository.save(config);
    await this.announce(saved.id);
    return saved;
  }

  /** Writes only the webhook's state (TrackingState and the refusal), nothing else of the row. */
  async saveTracking(config: GatewayConfig): Promise<void> {
    await this.repository.update(config.id, {
      ...config.tracking,
      eventsRefusedAt: config.eventsRefusedAt,
      eventsRefusedReason: config.eventsRefusedReason,
      updatedAt: config.updatedAt,
    });
    await this.announce(config.id);
  }

  /** The ids of the configurations that track delivery; of `ids` only, when given. */
  async trackingIds(ids?: number[]): Promise<number[]> {
    const query = this.repository
      .createQueryBuilder('config')
      .select('config.id', 'id')
      .where('config.track_delivery');
    if (ids) {
      query.andWhere('config.id = ANY(:ids)', { ids });
    }
    const rows = await query.getRawMany<{ id: number }>();
    return rows.map((row) => Number(row.id));
  }

  /**
   * Stores the instance's token learned for `config`, only while the row still tracks with the
   * secret `config` was read with: a stop or a new registration since then wins. False when it
   * did not.
   */
  async recordInstanceToken(
    config: GatewayConfig,
    instanceTokenEncrypted: string,
  ): Promise<boolean> {
    if (!config.eventsSecretHash) {
      return false;
    }
    const result = await this.repository
      .createQueryBuilder()
      .update()
      .set({ instanceTokenEncrypted })
      .where('id = :id AND track_delivery AND events_secret_hash = :hash', {
        id: config.id,
        hash: config.eventsSecretHash,
      })
      .execute();
    if (!result.affected) {
      return false;
    }
    await this.announce(config.id);
    return true;
  }

  /** Remembers that an event with the right secret was refused, and why. */
  async recordEventsRefused(id: number, reason: EventsRefusal, at: Date): Promise<void> {
    await this.repository.update(id, { eventsRefusedAt: at, eventsRefusedReason: reason });
  }

  /**
   * The configuration's reach-out lock, its row locked for `tx` (two batches of refusals of one
   * instance decide one after the other); `previous` is the last lock's start and length, kept
   * after it ended, which a new lock within a week doubles. Null when the row is gone.
   */
  async lockForReachOut(
    tx: Transaction,
    id: number,
  ): Promise<{
    current: ReachOutLock | null;
    previous: Pick<ReachOutLock, 'lockedAt' | 'seconds'> | null;
  } | null> {
    const rows = await queryRows<StoredReachOutLock>(
      tx,
      `SELECT reachout_lock_scope AS scope, reachout_lock_cause AS cause, reachout_locked_at AS "lockedAt",
              reachout_locked_until AS "lockedUntil", reachout_lock_seconds AS seconds
         FROM gateway_configs WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ? reachOutLockOf(rows[0]) : null;
  }

  async saveReachOutLock(tx: Transaction, id: number, lock: ReachOutLock): Promise<void> {
    await queryRows(
      tx,
      `UPDATE gateway_configs SET reachout_lock_scope = $2, reachout_lock_cause = $3,
              reachout_locked_at = $4, reachout_locked_until = $5, reachout_lock_seconds = $6
        WHERE id = $1`,
      [id, lock.scope, lock.cause, lock.lockedAt, lock.lockedUntil, lock.seconds],
    );
  }

  /**
   * Ends the reach-out locks of `ids`, or of every configuration whose lock ran out by `endedBy`;
   * answers the configurations whose lock ended. The start and length stay, for the next one.
   */
  async liftReachOutLocks(target: { ids: number[] } | { endedBy: Date }): Promise<number[]> {
    const rows = await queryRows<{ id: number }>(
      this.repository.manager,
      `UPDATE gateway_configs SET reachout_lock_scope = NULL, reachout_lock_cause = NULL,
              reachout_locked_until = NULL
        WHERE reachout_lock_scope IS NOT NULL
          AND (id = ANY($1::int[]) OR reachout_locked_until <= $2)
        RETURNING id`,
      'ids' in target ? [target.ids, null] : [[], target.endedBy],
    );
    return rows.map((row) => row.id);
  }

  private async announce(id: number): Promise<void> {
    this.changeListeners.forEach((listener) => listener(id));
    await this.repository.query(`SELECT pg_notify($1, $2)`, [CHANGES_CHANNEL, String(id)]);
  }

  /** 'referenced' when another table's foreign key still points at the row (nothing deleted). */
  async delete(companyId: number, id: number): Promise<'deleted' | 'referenced'> {
    try {
      await this.repository.delete({ companyId, id });
      await this.announce(id);
      return 'deleted';
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === FOREIGN_KEY_VIOLATION
      ) {
        return 'referenced';
      }
      throw error;
    }
  }
}
