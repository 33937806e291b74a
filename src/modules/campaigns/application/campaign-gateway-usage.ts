import { gatewayConfigUsage } from '../../gateway/application/gateway-config-usage.registry';
import { CampaignsRepository } from '../infrastructure/campaigns.repository';

/**
 * A gateway configuration cannot be deleted while a live campaign sends through it; the
 * campaigns count who sends through an instance (automation runs are campaigns).
 */
export const campaignGatewayUsage = gatewayConfigUsage(CampaignsRepository, {
  reason: 'usada por uma campanha ativa, agendada ou pausada',
  inUse: (campaigns, companyId, configId) => campaigns.usesGatewayConfig(companyId, configId),
  countSenders: (campaigns, companyId, configIds) =>
    campaigns.activeSendersOf(companyId, configIds),
});
