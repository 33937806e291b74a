import { OwnedResources } from '../../../../common/tenancy/owned-resource';
import type { GatewayConfig } from '../../domain/gateway-config.entity';
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
  abstract save(config: GatewayConfig): Promise<GatewayConfig>;
  /** 'referenced' when another table's foreign key still points at the row (nothing deleted). */
  abstract delete(companyId: number, id: number): Promise<'deleted' | 'referenced'>;
}
