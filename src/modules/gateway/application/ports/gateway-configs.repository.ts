import { OwnedResources } from '../../../../common/tenancy/owned-resource';
import type { EventsRefusal, GatewayConfig } from '../../domain/gateway-config.entity';

export abstract class GatewayConfigsRepository extends OwnedResources<GatewayConfig> {
  /** Newest first; ids grow with creation, so the (company_id, id) index serves the order. */
  abstract listNewestFirst(companyId: number): Promise<GatewayConfig[]>;
  /** For inbound events, which name a configuration but no company: the caller checks its secret. */
  abstract findById(id: number): Promise<GatewayConfig | null>;
  abstract recordInstanceState(
    id: number,
    state: string,
    reason: number | null,
    at: Date,
  ): Promise<boolean>;
  /**
   * Calls `listener` with a configuration's id after each of its changes commits: at once for a
   * change made by this instance, through a notification for one made by another instance;
   * with null when notifications may have been missed (any configuration may have changed).
   */
  abstract watchChanges(listener: (id: number | null) => void): Promise<void>;
  /** The ids of the configurations that track delivery; of `ids` only, when given. */
  abstract trackingIds(ids?: number[]): Promise<number[]>;
  abstract save(config: GatewayConfig): Promise<GatewayConfig>;
  /** Writes only the webhook's state (TrackingState and the refusal), nothing else of the row. */
  abstract saveTracking(config: GatewayConfig): Promise<void>;
  /**
   * Stores the instance's token learned for `config`, only while the row still tracks with the
   * secret `config` was read with: a stop or a new registration since then wins. False when it
   * did not.
   */
  abstract recordInstanceToken(
    config: GatewayConfig,
    instanceTokenEncrypted: string,
  ): Promise<boolean>;
  /** Remembers that an event with the right secret was refused, and why. */
  abstract recordEventsRefused(id: number, reason: EventsRefusal, at: Date): Promise<void>;
  /** 'referenced' when another table's foreign key still points at the row (nothing deleted). */
  abstract delete(companyId: number, id: number): Promise<'deleted' | 'referenced'>;
}
