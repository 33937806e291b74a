import { Injectable } from '@nestjs/common';
import { ExpiringMap } from '../../../common/caching/expiring-map';
import { GatewayConfigsService } from '../../gateway/application/gateway-configs.service';
import type { GatewayTarget } from '../../gateway/domain/messaging-gateway';

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/**
 * Gateway targets for the engine, kept a few seconds so that a campaign sending with zero
 * intervals does not decrypt its API key for every message; an edited configuration is
 * picked up within TTL_MS. Keyed by company too, so a hit never skips the ownership check.
 */
@Injectable()
export class CampaignGatewayTargets {
  private readonly cache = new ExpiringMap<string, GatewayTarget>(TTL_MS, MAX_ENTRIES);

  constructor(private readonly configs: GatewayConfigsService) {}

  async targetFor(companyId: number, gatewayConfigId: number): Promise<GatewayTarget> {
    const key = `${companyId}:${gatewayConfigId}`;
    const cached = this.cache.get(key);
    if (cached) {
      return cached.value;
    }
    const { target } = await this.configs.resolveTarget(companyId, gatewayConfigId);
    this.cache.set(key, target);
    return target;
  }
}
